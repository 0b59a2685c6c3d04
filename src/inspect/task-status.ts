import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { PictureTask } from '../daemon/picture.js';
import { countOf } from '../daemon/state-groups.js';
import type { DaemonStatus } from '../daemon/status.js';
import { taskPicture } from '../daemon/view.js';
import { readTaskFile } from '../task/read.js';
import { stateWord } from '../task/states.js';
import type { FoundTask } from '../vault/find-task.js';
import type { IterationRecord } from '../memory/history.js';
import { throughRunLink } from '../memory/run-link.js';
import { describeSpent } from '../memory/spent.js';
import type { Spent } from '../memory/spent.js';
import { spentOfTask } from '../loop/checkpoint.js';
import type { SessionPaths } from '../memory/paths.js';
import { describeIterations, iterationCount } from '../task/iteration-count.js';
import type { Task } from '../task/parse.js';
import type { VaultLayout } from '../vault/layout.js';
import { listLogs } from './task-logs.js';
import { sessionHistory, taskSession } from './task-session.js';

const RECENT_ITERATIONS = 10;

/**
 * One task wherever it is (`status ID`, `GET /api/v1/tasks/{id}`): its state and count as the
 * whole picture gives them (src/daemon/picture.ts), its checkpoint, where its memory is and its
 * recent iterations. A file that does not parse is described too, with why.
 * `status`: the daemon's picture when the caller has it (the API), else read (undefined).
 */
export async function describeTask(
  found: FoundTask,
  layout: VaultLayout,
  status: DaemonStatus | null | undefined,
  json: boolean,
  defaultHarness?: string | null,
): Promise<string> {
  const seen = await taskPicture(layout, found.file, status, defaultHarness);
  const task = found.task;
  if (task === null) {
    const problem = await parseProblem(found.file);
    const detail = { ...seen, problem };
    return json ? `${JSON.stringify(detail, null, 2)}\n` : renderUnparsable(detail, layout);
  }
  // This run's memory: through its link when it has one, which still leads there after the id ran again.
  const session = await taskSession({ id: task.id, sessionId: task.frontmatter.persistence_loop?.session }, layout);
  const { paths, own } = session;
  const history = await sessionHistory(session);
  const currentLog = own ? ((await listLogs(paths.logs)).at(-1) ?? null) : null;
  const shownLog = currentLog === null ? null : throughRunLink(currentLog.path, paths.dir, session.runLink);
  const detail = { ...taskDetail(task, seen, history, paths, own), runLink: session.runLink, currentLog: shownLog };
  return json ? `${JSON.stringify(detail, null, 2)}\n` : renderDetail(detail, layout);
}

/** Why a file does not parse, as `wiggum validate` would say it (its first problems). */
async function parseProblem(file: string): Promise<string> {
  const read = await readTaskFile(file).catch((error: unknown) => error);
  if (read instanceof Error) return read.message;
  if (typeof read !== 'object' || read === null || !('result' in read)) return 'unreadable';
  const { result } = read as Awaited<ReturnType<typeof readTaskFile>>;
  if (result.ok) return 'it parses now';
  return result.problems
    .slice(0, 3)
    .map((problem) => `${problem.line === undefined ? '' : `line ${problem.line}: `}${problem.message}`)
    .join('; ');
}

function renderUnparsable(detail: PictureTask & { problem: string }, layout: VaultLayout): string {
  return `${detail.id}  (${relative(layout.root, detail.file)})\n  state ${stateWord(detail.state)}, after 0 iterations\n  does not parse: ${detail.problem}\n  (wiggum validate "${relative(layout.root, detail.file)}" lists every problem)\n`;
}

type TaskDetail = PictureTask & {
  /** The checkpoint, as the file has it. */
  loop: NonNullable<Task['frontmatter']['persistence_loop']> | null;
  /** The folder that holds this run's memory (null: none on disk, or only another run's). */
  session: string | null;
  /** The run's permanent address in `.wiggum/runs/`, when it has one. */
  runLink?: string | null;
  /** The newest harness log of this run (the one being written while an iteration runs), through the run's link. */
  currentLog?: string | null;
  /** Tokens, cost, agent time, CPU and memory over every run of the task. */
  spent: Spent;
  recent: Pick<
    IterationRecord,
    | 'iteration'
    | 'attempt'
    | 'durationMs'
    | 'completionFound'
    | 'exitCode'
    | 'signal'
    | 'outcome'
    | 'storiesPassing'
    | 'storiesTotal'
    | 'git'
    | 'endedAt'
    | 'usage'
    | 'resources'
    | 'agentSessionId'
    | 'sandbox'
  >[];
};

function taskDetail(
  task: Task,
  seen: PictureTask,
  history: IterationRecord[],
  paths: SessionPaths,
  own: boolean,
): TaskDetail {
  return {
    ...seen,
    iterations: seen.iterations ?? task.frontmatter.persistence_loop?.iteration ?? 0,
    loop: task.frontmatter.persistence_loop ?? null,
    session: own && existsSync(paths.sessionFile) ? paths.dir : null,
    spent: spentOfTask(task.frontmatter.persistence_loop, history),
    recent: history.slice(-RECENT_ITERATIONS).map((r) => ({
      iteration: r.iteration,
      attempt: r.attempt,
      durationMs: r.durationMs,
      completionFound: r.completionFound,
      exitCode: r.exitCode,
      signal: r.signal,
      outcome: r.outcome,
      storiesPassing: r.storiesPassing,
      storiesTotal: r.storiesTotal,
      ...(r.git === undefined ? {} : { git: r.git }),
      ...(r.usage === undefined ? {} : { usage: r.usage }),
      ...(r.resources === undefined ? {} : { resources: r.resources }),
      ...(r.agentSessionId === undefined ? {} : { agentSessionId: r.agentSessionId }),
      ...(r.sandbox === undefined ? {} : { sandbox: r.sandbox }),
      endedAt: r.endedAt,
    })),
  };
}

function renderDetail(detail: TaskDetail, layout: VaultLayout): string {
  const loop = detail.loop;
  const lines = [`${detail.id}  (${relative(layout.root, detail.file)})`];
  const count = countOf(detail) ?? iterationCount(detail.iterations, undefined, false);
  lines.push(
    `  state ${stateWord(detail.state)}` +
      (loop === null || loop === undefined
        ? `, not started, ${describeIterations(count)}`
        : `, ${describeIterations(count)}, step ${loop.checkpoint?.current_step ?? '—'}`),
  );
  if (detail.why !== undefined) lines.push(`  why: ${detail.why}`);
  if (detail.question !== undefined) lines.push(`  question: ${detail.question}`);
  if (loop?.checkpoint !== undefined)
    lines.push(
      `  completed: ${loop.checkpoint.completed_steps.length === 0 ? 'none' : loop.checkpoint.completed_steps.join(', ')}`,
    );
  lines.push(`  spent: ${describeSpent(detail.spent)}`);
  const where = detail.session === null ? 'no session on disk' : relative(layout.root, detail.session);
  const memory =
    detail.runLink === null || detail.runLink === undefined || detail.session === null
      ? where
      : `${relative(layout.root, detail.runLink)} (now ${where})`;
  lines.push(`  memory: ${memory}${detail.run?.durable === false ? ' (NOT DURABLE: kept in memory only)' : ''}`);
  const sandbox = sandboxText(detail.recent.at(-1)?.sandbox);
  if (sandbox !== null) lines.push(`  sandbox: ${sandbox}`);
  if (detail.currentLog !== null && detail.currentLog !== undefined) {
    const running = detail.run?.current !== undefined;
    lines.push(
      `  ${running ? 'current log' : 'last log'}: ${relative(layout.root, detail.currentLog)} (wiggum logs ${detail.id}${running ? ' --follow' : ''})`,
    );
  }
  if (detail.recent.length === 0) {
    lines.push('  no iteration has finished yet');
  } else {
    lines.push(
      '  recent iterations:',
      '    iter  try  duration  promise  exit  outcome       stories  files  tokens in/out  cost',
    );
    for (const r of detail.recent) {
      lines.push(
        `    ${pad(r.iteration, 4)}  ${pad(r.attempt, 3)}  ${pad(`${(r.durationMs / 1000).toFixed(1)}s`, 8)}  ${pad(r.completionFound ? 'yes' : 'no', 7)}  ${pad(r.signal ?? r.exitCode ?? '—', 4)}  ${pad(r.outcome, 12)}  ${pad(`${r.storiesPassing}/${r.storiesTotal}`, 7)}  ${pad(r.git?.filesChanged ?? '—', 5)}  ${pad(r.usage === undefined ? '—' : `${r.usage.inputTokens}/${r.usage.outputTokens}`, 13)}  ${r.usage?.costUsd === undefined ? '—' : `$${r.usage.costUsd.toFixed(4)}`}`.trimEnd(),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** How the last iteration's agent ran, as its history says; null: an older wiggum did not say. */
function sandboxText(sandbox: IterationRecord['sandbox']): string | null {
  switch (sandbox) {
    case 'bwrap':
      return 'the last iteration ran confined (bubblewrap)';
    case 'off':
      return 'the last iteration ran unconfined (sandbox.mode: off)';
    case 'unconfined':
      return 'the last iteration ran UNCONFINED: bubblewrap could not run (sandbox.mode: auto)';
    case undefined:
      return null;
  }
}

function pad(value: string | number, width: number): string {
  return String(value).padEnd(width);
}
