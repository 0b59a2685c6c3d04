import { readHistoryFile } from '../memory/history.js';
import type { IterationRecord } from '../memory/history.js';
import { pathsIn, sessionPaths } from '../memory/paths.js';
import type { SessionPaths } from '../memory/paths.js';
import { findRunLink } from '../memory/run-link.js';
import { parseSessionMeta, readMemoryText } from '../memory/session-meta.js';
import type { VaultLayout } from '../vault/layout.js';

/** Where a task's current run keeps its memory, and whether that folder is this run's own. */
export interface TaskSession {
  paths: SessionPaths;
  /** The run's permanent address in `.wiggum/runs/`, when it has one. */
  runLink: string | null;
  /** False when the folder belongs to another run of the same id. */
  own: boolean;
}

/** This run's memory: through its link when it has one, which still leads there after the id ran again. */
export async function taskSession(
  task: { id: string; sessionId: string | undefined },
  layout: VaultLayout,
): Promise<TaskSession> {
  const run =
    task.sessionId === undefined ? null : await findRunLink(layout.sessions, task.id, task.sessionId).catch(() => null);
  const paths = run === null ? sessionPaths(layout.sessions, task.id) : pathsIn(run.dir);
  const own = run !== null || task.sessionId === undefined || sessionOf(paths) === task.sessionId;
  return { paths, runLink: run?.link ?? null, own };
}

/** The session's iteration records, or none when the folder is another run's or has none. */
export async function sessionHistory(session: TaskSession): Promise<IterationRecord[]> {
  return session.own ? await readHistoryFile(session.paths.history).catch(() => [] as IterationRecord[]) : [];
}

/** The session id a session folder belongs to, or null when it has none that reads. */
function sessionOf(paths: SessionPaths): string | null {
  try {
    const text = readMemoryText(paths.sessionFile);
    return text === null ? null : parseSessionMeta(text, paths.sessionFile).sessionId;
  } catch {
    return null;
  }
}
