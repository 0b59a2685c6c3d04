import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { TaskEntry } from '../daemon/status.js';
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

/** One task: its checkpoint, where its memory is, and its recent iterations (`--status`). */
export async function describeTask(
  task: Task,
  layout: VaultLayout,
  live: TaskEntry | null,
  json: boolean,
): Promise<string> {
  // This run's memory: through its link when it has one, which still leads there after the id ran again.
  const session = await taskSession({ id: task.id, sessionId: task.frontmatter.persistence_loop?.session }, layout);
  const { paths, own } = session;
  const history = await sessionHistory(session);
  const currentLog = own ? ((await listLogs(paths.logs)).at(-1) ?? null) : null;
  const shownLog = currentLog === null ? null : throughRunLink(currentLog.path, paths.dir, session.runLink);
  const detail = { ...taskDetail(task, history, live, paths, own), runLink: session.runLink, currentLog: shownLog };
  return json ? `${JSON.stringify(detail, null, 2)}\n` : renderDetail(detail, layout);
}

interface TaskDetail {
  id: string;
  file: string;
  state: string;
  loop: NonNullable<Task['frontmatter']['persistence_loop']> | null;
  live: TaskEntry | null;
  /** The folder that holds this run's memory (null: none on disk, or only another run's). */
  session: string | null;
  /** The run's permanent address in `.wiggum/runs/`, when it has one. */
  runLink?: string | null;
  /** The newest harness log of this run (the one being written while an iteration runs), through the run's link. */
  currentLog?: string | null;
  iterations: number;
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
  >[];
}

function taskDetail(
  task: Task,
  history: IterationRecord[],
  live: TaskEntry | null,
  paths: SessionPaths,
  own: boolean,
): TaskDetail {
  return {
    id: task.id,
    file: task.file,
    state: task.frontmatter.state ?? 'Approved',
    loop: task.frontmatter.persistence_loop ?? null,
    live,
    session: own && existsSync(paths.sessionFile) ? paths.dir : null,
    iterations: task.frontmatter.persistence_loop?.iteration ?? 0,
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
      endedAt: r.endedAt,
    })),
  };
}

function renderDetail(detail: TaskDetail, layout: VaultLayout): string {
  const loop = detail.loop;
  const lines = [`${detail.id}  (${relative(layout.root, detail.file)})`];
  lines.push(
    `  state ${detail.state}` +
      (loop === null || loop === undefined
        ? `, not started, ${describeIterations(iterationCount(0, undefined, false))}`
        : `, loop ${detail.live?.phase ?? loop.status}, ${describeIterations(iterationCount(loop.iteration, loop.max_iterations, detail.live?.current !== undefined))}, step ${loop.checkpoint?.current_step ?? '—'}`),
  );
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
  lines.push(`  memory: ${memory}${detail.live?.durable === false ? ' (NOT DURABLE: kept in memory only)' : ''}`);
  if (detail.currentLog !== null && detail.currentLog !== undefined) {
    const running = detail.live?.current !== undefined;
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

function pad(value: string | number, width: number): string {
  return String(value).padEnd(width);
}
