import { join } from 'node:path';

/** Every file of one task's session memory: `<vault>/.wiggum/sessions/<task id>/…`. */
export interface SessionPaths {
  dir: string;
  /** session.json: who the folder belongs to (session id, task, branch). */
  sessionFile: string;
  prd: string;
  progress: string;
  context: string;
  history: string;
  /** `logs/NNNN.log`, one per iteration (`NNNN.retryK.log` for its retries), written by the harness. */
  logs: string;
}

export function sessionPaths(sessionsRoot: string, taskId: string): SessionPaths {
  const dir = join(sessionsRoot, taskId);
  return pathsIn(dir);
}

/** The same names inside any folder (a session being built, or an archived one). */
export function pathsIn(dir: string): SessionPaths {
  return {
    dir,
    sessionFile: join(dir, 'session.json'),
    prd: join(dir, 'prd.json'),
    progress: join(dir, 'progress.txt'),
    context: join(dir, 'context.md'),
    history: join(dir, 'history.jsonl'),
    logs: join(dir, 'logs'),
  };
}

/** `logs/0007.log` for iteration 7, `logs/0007.retry2.log` for its second retry. */
export function logFilePath(paths: SessionPaths, iteration: number, attempt: number): string {
  return join(paths.logs, `${String(iteration).padStart(4, '0')}${attempt === 0 ? '' : `.retry${attempt}`}.log`);
}
