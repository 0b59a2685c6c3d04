import type { AuthorWait, FinishedEntry, TaskEntry } from '../daemon/status.js';
import type { Spent } from '../memory/spent.js';
import { describeIterations, iterationCount } from '../task/iteration-count.js';
import { plural } from '../plural.js';
import { passesByItself } from '../task/order.js';

/** Everything one frame of `status --watch` shows, read from the vault at one moment. */
export interface WatchSnapshot {
  vault: string;
  nowMs: number;
  daemon: { pid: number; lifecycle: string; startedAtMs: number; concurrency: number } | null;
  counts: { approved: number; done: number; rejected: number };
  /** The vault's STOP file exists. */
  held: boolean;
  tasks: WatchedTask[];
  waitingForAuthor: AuthorWait[];
  recent: FinishedEntry[];
}

/** A task the daemon knows about, with what its session says. */
export interface WatchedTask {
  entry: TaskEntry;
  /** Its stop flag's file name (`<name>.stop`), when the flag exists. */
  stopFlag: string | null;
  /** Tokens and cost of this run's finished iterations (the running one is counted when it ends). */
  spent: Pick<Spent, 'inputTokens' | 'outputTokens' | 'costUsd'> | null;
  /** The last line its agent's current log renders to (text, `→ tool`, `← result`), if any. */
  lastEvent: string | null;
}

const RECENT_SHOWN = 5;
const EVENT_CHARS = 120;

/**
 * One frame: a header whose shape never changes (frames printed one after another start alike),
 * the daemon, counts per folder, then running, waiting and held, queued and stopped tasks.
 * `width` (a terminal's columns) cuts each line to fit, so a redraw in place never wraps.
 */
export function renderFrame(snapshot: WatchSnapshot, width?: number): string {
  const now = snapshot.nowMs;
  const lines = [`wiggum ${clock(now)} · ${snapshot.vault}`];
  const daemon = snapshot.daemon;
  lines.push(
    daemon === null
      ? 'daemon: not running (wiggum start runs it)'
      : `daemon: ${daemon.lifecycle}, pid ${daemon.pid}, up ${duration(now - daemon.startedAtMs)}, ${daemon.concurrency} at a time`,
  );
  lines.push(
    `Approved ${snapshot.counts.approved} · Done ${snapshot.counts.done} · Rejected ${snapshot.counts.rejected}`,
  );
  if (snapshot.held) lines.push('STOP exists: nothing new starts; running tasks hold before their next iteration');
  const groups: [string, WatchedTask[]][] = [
    ['running', snapshot.tasks.filter((t) => t.entry.phase === 'running')],
    [
      'waiting and held',
      snapshot.tasks.filter(
        (t) =>
          t.entry.phase === 'waiting' ||
          t.entry.phase === 'held' ||
          (t.entry.phase === 'stopped' && t.stopFlag !== null),
      ),
    ],
    ['queued', snapshot.tasks.filter((t) => t.entry.phase === 'queued')],
    ['stopped', snapshot.tasks.filter((t) => t.entry.phase === 'stopped' && t.stopFlag === null)],
  ];
  for (const [title, tasks] of groups) {
    if (tasks.length === 0) continue;
    lines.push('', `${title} (${tasks.length}):`);
    for (const task of tasks) lines.push(...taskLines(task, now));
  }
  // The order of work holds some (a dependency still to run, a time): they start by themselves,
  // so they are not listed as waiting for the person, as the Dashboard says it too.
  const inOrder = snapshot.waitingForAuthor.filter(
    (wait) => typeof wait.reason === 'object' && passesByItself(wait.reason),
  );
  const forYou = snapshot.waitingForAuthor.filter((wait) => !inOrder.includes(wait));
  for (const [title, waits] of [
    ['waiting their turn', inOrder],
    ['waiting for you', forYou],
  ] as const) {
    if (waits.length === 0) continue;
    lines.push('', `${title} (${waits.length}):`);
    for (const wait of waits) lines.push(`  ${wait.name}: ${wait.message}`);
  }
  if (snapshot.recent.length > 0) {
    lines.push('', 'recently finished:');
    for (const item of snapshot.recent.slice(0, RECENT_SHOWN))
      lines.push(
        `  ${item.status === 'done' ? 'done    ' : 'rejected'}  ${item.id ?? item.file}  after ${plural(item.iterations, 'iteration')}`,
      );
  }
  if (snapshot.tasks.length === 0 && snapshot.waitingForAuthor.length === 0) lines.push('', 'nothing running');
  const fitted =
    width === undefined || width < 20
      ? lines
      : lines.map((line) => ([...line].length > width ? `${[...line].slice(0, width - 1).join('')}…` : line));
  return `${fitted.join('\n')}\n`;
}

function taskLines(task: WatchedTask, now: number): string[] {
  const entry = task.entry;
  const parts = [entry.id];
  if (entry.iteration !== undefined || entry.current !== undefined)
    parts.push(describeIterations(iterationCount(entry.iteration, entry.maxIterations, entry.current !== undefined)));
  if (entry.step) parts.push(entry.step);
  parts.push(why(task, now));
  if (task.spent !== null) parts.push(spentText(task.spent));
  const lines = [`  ${parts.join(' · ')}`];
  if (task.lastEvent !== null) lines.push(`      ${cut(task.lastEvent, EVENT_CHARS)}`);
  return lines;
}

/** What the task is doing and for how long, or why it does not run, and on which worker (queue mode). */
export function why(task: WatchedTask, now: number): string {
  const doing = whatItDoes(task, now);
  return task.entry.worker === undefined ? doing : `${doing} · on worker ${task.entry.worker.id}`;
}

function whatItDoes(task: WatchedTask, now: number): string {
  const entry = task.entry;
  const since = duration(now - entry.sinceMs);
  switch (entry.phase) {
    case 'running':
      return `running ${since}${entry.taskStartedMs === undefined ? '' : ` (task ${duration(now - entry.taskStartedMs)})`}${entry.harness === undefined ? '' : ` · ${entry.harness}`}`;
    case 'waiting': {
      const left = entry.untilMs === undefined ? '' : `, ${duration(entry.untilMs - now)} left`;
      if (entry.waitingFor === 'outage')
        return `waiting on harness ${entry.outage?.harness ?? entry.harness ?? '?'} (outage), probing again${left}`;
      return entry.waitingFor === 'usage-limit'
        ? `waiting for the usage limit to reset${left}`
        : `waiting to retry${left}`;
    }
    case 'held':
      return task.stopFlag === null
        ? `held by STOP for ${since}`
        : `held: its stop flag ${task.stopFlag} (wiggum resume ${entry.id})`;
    case 'queued':
      return `queued ${since}`;
    case 'stopped':
      return task.stopFlag === null ? 'stopped' : `held: its stop flag ${task.stopFlag} (wiggum resume ${entry.id})`;
  }
}

/** "2,400 tokens · $0.0250"; "no tokens yet" before an iteration ends. */
export function spentText(spent: NonNullable<WatchedTask['spent']>): string {
  const tokens = spent.inputTokens + spent.outputTokens;
  const text = tokens === 0 ? 'no tokens yet' : `${tokens.toLocaleString('en-US')} tokens`;
  return spent.costUsd === null ? text : `${text} · $${spent.costUsd.toFixed(4)}`;
}

/** "12s", "3m 05s", "2h 07m": a non-negative elapsed time. */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/** The wall-clock time of the frame, HH:MM:SS in UTC. */
function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

function cut(text: string, chars: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > chars ? `${flat.slice(0, chars - 1)}…` : flat;
}
