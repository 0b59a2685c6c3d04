import type { PictureTask } from '../daemon/picture.js';
import { countOf, groupByState } from '../daemon/state-groups.js';
import type { Spent } from '../memory/spent.js';
import { plural } from '../plural.js';
import { describeIterations } from '../task/iteration-count.js';
import { STATE_TABLE, TASK_FOLDERS, stateWord } from '../task/states.js';
import type { TaskFolder } from '../task/states.js';

/** Everything one frame of `status --watch` shows, read from the vault at one moment. */
export interface WatchSnapshot {
  vault: string;
  nowMs: number;
  daemon: { pid: number; lifecycle: string; startedAtMs: number; concurrency: number } | null;
  counts: Record<TaskFolder, number>;
  /** The vault's STOP file exists. */
  held: boolean;
  /** Every task, in the picture's order (src/daemon/picture.ts). */
  tasks: WatchedTask[];
}

/** A task of the picture, with what its session says. */
export interface WatchedTask {
  task: PictureTask;
  /** Tokens and cost of this run's finished iterations (the running one is counted when it ends). */
  spent: Pick<Spent, 'inputTokens' | 'outputTokens' | 'costUsd'> | null;
  /** The last line its agent's current log renders to (text, `→ tool`, `← result`), if any. */
  lastEvent: string | null;
}

/** Ended tasks listed per ended state; the rest are counted. */
const ENDED_SHOWN = 5;
const EVENT_CHARS = 120;

/**
 * One frame: a header whose shape never changes (frames printed one after another start alike),
 * the daemon, counts per folder, then every task under its state, those that wait on a person
 * first, as `status` lists them. `width` (a terminal's columns) cuts each line to fit, so a redraw
 * in place never wraps.
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
  lines.push(TASK_FOLDERS.map((folder) => `${folderWord(folder)} ${snapshot.counts[folder]}`).join(' · '));
  if (snapshot.held) lines.push('STOP exists: nothing new starts; running tasks hold before their next iteration');
  const watched = new Map(snapshot.tasks.map((item) => [item.task, item]));
  for (const group of groupByState(snapshot.tasks.map((item) => item.task))) {
    const ended = STATE_TABLE[group.state].folder === 'done' || STATE_TABLE[group.state].folder === 'rejected';
    const shown = ended ? group.tasks.slice(0, ENDED_SHOWN) : group.tasks;
    lines.push('', `${stateWord(group.state)} (${group.tasks.length}):`);
    for (const task of shown)
      lines.push(...taskLines(watched.get(task) ?? { task, spent: null, lastEvent: null }, now));
    if (shown.length < group.tasks.length) lines.push(`  … and ${group.tasks.length - shown.length} more`);
  }
  if (snapshot.tasks.length === 0) lines.push('', 'nothing running');
  const fitted =
    width === undefined || width < 20
      ? lines
      : lines.map((line) => ([...line].length > width ? `${[...line].slice(0, width - 1).join('')}…` : line));
  return `${fitted.join('\n')}\n`;
}

function folderWord(folder: TaskFolder): string {
  return `${folder.charAt(0).toUpperCase()}${folder.slice(1)}`;
}

function taskLines(item: WatchedTask, now: number): string[] {
  const { task } = item;
  const parts = [task.id];
  const count = countOf(task);
  const ended = STATE_TABLE[task.state].folder !== 'approved';
  // No "0 done" for a task that has not finished an iteration, as status says it.
  if (count !== null && (count.done > 0 || count.running !== null))
    parts.push(ended ? `after ${plural(count.done, 'iteration')}` : describeIterations(count));
  if (task.run?.step) parts.push(task.run.step);
  const doing = why(item, now);
  if (doing !== '') parts.push(doing);
  if (item.spent !== null) parts.push(spentText(item.spent));
  const lines = [`  ${parts.join(' · ')}`];
  if (item.lastEvent !== null) lines.push(`      ${cut(item.lastEvent, EVENT_CHARS)}`);
  return lines;
}

/** What the task is doing and for how long, or why it does not run, and on which worker (queue mode). */
export function why(item: WatchedTask, now: number): string {
  const doing = whatItDoes(item.task, now);
  const worker = item.task.worker;
  return worker === undefined ? doing : `${doing} · on worker ${worker.id}`;
}

function whatItDoes(task: PictureTask, now: number): string {
  const run = task.run;
  const since = run === undefined ? '' : ` ${duration(now - run.sinceMs)}`;
  const left = run?.untilMs === undefined ? '' : `, ${duration(run.untilMs - now)} left`;
  switch (task.state) {
    case 'running':
      if (run?.foreground !== undefined) return `running in a foreground wiggum run (pid ${run.foreground.pid})`;
      return `running${since}${run?.taskStartedMs === undefined ? '' : ` (task ${duration(now - run.taskStartedMs)})`}${run?.harness === undefined ? '' : ` · ${run.harness}`}`;
    case 'outage':
      return `waiting on harness ${run?.outage?.harness ?? run?.harness ?? '?'} (outage), probing again${left}`;
    case 'usage-limit':
      return `waiting for the usage limit to reset${left}`;
    case 'retrying':
      return `waiting to retry${left}`;
    case 'landing':
      return `waiting to land${task.why === undefined ? '' : `: ${cut(task.why, EVENT_CHARS)}`}${left}`;
    case 'held':
      return `held by STOP${since === '' ? '' : ` for${since}`}`;
    case 'queued':
      return `queued${since}`;
    case 'stopped':
      return `held: its stop flag (wiggum resume ${task.id})`;
    case 'failing':
      return `the last attempt failed: ${cut(task.why ?? 'unknown', EVENT_CHARS)}`;
    case 'blocked':
      return task.question === undefined || task.question === '' ? 'asks a question' : `asks: ${task.question}`;
    case 'rejected':
      return task.reason === undefined ? '' : cut(task.reason, EVENT_CHARS);
    case 'needs-harness':
    case 'being-written':
    case 'waiting-for-you':
    case 'waiting-on-dependency':
    case 'scheduled':
    case 'review-slot':
    case 'invalid':
      return task.why === undefined ? '' : cut(task.why, EVENT_CHARS);
    case 'in-review':
    case 'interrupted':
    case 'done':
      return '';
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
