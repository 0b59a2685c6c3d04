import { relative } from 'node:path';
import { elapsed, sortedWorkers } from '../daemon/dashboard.js';
import type { AuthorWait, TaskEntry, WorkerStatus } from '../daemon/status.js';
import type { VaultView } from '../daemon/view.js';
import { describeNotifier } from '../notify/describe.js';
import { plural } from '../plural.js';
import { describeIterations, iterationCount } from '../task/iteration-count.js';
import { passesByItself } from '../task/order.js';
import type { VaultLayout } from '../vault/layout.js';

/** A group longer than this shows its first `SHOWN` lines and a count, unless `--all`. */
const LONG_GROUP = 20;
const SHOWN = 10;

export interface StatusTextOptions {
  /** List every task of every group. */
  all: boolean;
  /** Why the vault's configuration cannot be used (status then reads the folders with the defaults). */
  configProblem: string | null;
}

/**
 * `wiggum status` as text: every task in Approved/ under what it is doing or why not (running here
 * or in a foreground run, waiting, held, failing, queued, stopped, refused), a long group cut to
 * its first lines and a count so that 4,000 queued tasks do not print 4,000 lines.
 */
export function renderStatus(view: VaultView, layout: VaultLayout, nowMs: number, options: StatusTextOptions): string {
  const lines: string[] = [];
  const daemon = view.daemon;
  lines.push(`vault ${layout.root}`);
  lines.push(
    daemon === null
      ? 'daemon: not running'
      : `daemon: ${daemon.lifecycle} (pid ${daemon.pid}, up ${elapsed(nowMs - daemon.startedAtMs)}, ${daemon.concurrency} at a time)`,
  );
  if (options.configProblem !== null) lines.push(`config: ${options.configProblem}`);
  lines.push(`Approved ${view.counts.approved} · Done ${view.counts.done} · Rejected ${view.counts.rejected}`);
  if (view.held) lines.push('STOP exists: nothing new starts; running tasks hold before their next iteration');

  const failing = (t: TaskEntry): boolean => t.phase === 'queued' && t.failure !== undefined;
  const groups: [string, TaskEntry[]][] = [
    ['running', view.tasks.filter((t) => t.phase === 'running' || t.phase === 'waiting' || t.phase === 'held')],
    ['failing, tried again', view.tasks.filter(failing)],
    ['queued', view.tasks.filter((t) => t.phase === 'queued' && !failing(t))],
    ['stopped', view.tasks.filter((t) => t.phase === 'stopped')],
  ];
  for (const [title, tasks] of groups) {
    if (tasks.length === 0) continue;
    lines.push('', `${title}:`);
    lines.push(
      ...cut(
        tasks.map((task) => `  ${taskLine(task, title, nowMs)}`),
        options.all,
        `${title.split(',')[0] ?? title}`,
      ),
    );
  }
  if (view.workers !== undefined) {
    const workers = sortedWorkers(view.workers);
    lines.push('', 'workers:');
    if (workers.length === 0) lines.push('  none connected: start one with wiggum worker --queue redis://HOST:PORT');
    lines.push(
      ...cut(
        workers.map((worker) => `  ${workerLine(worker, nowMs)}`),
        options.all,
        'workers',
      ),
    );
  }
  const inOrder = view.waitingForAuthor.filter(waitsInOrder);
  const forYou = view.waitingForAuthor.filter((wait) => !waitsInOrder(wait));
  if (inOrder.length > 0) {
    lines.push('', 'waiting (order of work):');
    lines.push(
      ...cut(
        inOrder.map((wait) => `  ${wait.name.replace(/\.md$/i, '')}: ${wait.message}`),
        options.all,
        'waiting',
      ),
    );
  }
  if (forYou.length > 0) {
    lines.push('', 'waiting for you (not run until fixed):');
    // The file's stem names it as the task lists do (`hl`), the message says what to fix.
    lines.push(
      ...cut(
        forYou.map((wait) => `  ${wait.name.replace(/\.md$/i, '')}: ${wait.message}`),
        options.all,
        'waiting for you',
      ),
    );
  }
  if (view.recent.length > 0) {
    lines.push('', 'recently finished:');
    for (const item of view.recent.slice(0, 10))
      lines.push(
        `  ${item.status === 'done' ? 'done    ' : 'rejected'}  ${item.id ?? relative(layout.root, item.file)}${item.reason === undefined ? `  after ${plural(item.iterations, 'iteration')}` : `  ${item.reason.slice(0, 100)}`}`,
      );
  }
  if (view.notifiers !== undefined && view.notifiers.length > 0) {
    lines.push('', 'notifiers:');
    for (const notifier of view.notifiers) lines.push(`  ${describeNotifier(notifier, nowMs)}`);
  }
  const fragile = view.tasks.filter((t) => t.durable === false).map((t) => t.id);
  if (fragile.length > 0)
    lines.push('', `WARNING: session memory is NOT durable for ${fragile.join(', ')}; see the daemon log`);
  return `${lines.join('\n')}\n`;
}

/** The first lines of a long group and how many more there are. */
function cut(lines: string[], all: boolean, what: string): string[] {
  if (all || lines.length <= LONG_GROUP) return lines;
  return [
    ...lines.slice(0, SHOWN),
    `  … and ${lines.length - SHOWN} more ${what} (${lines.length} in all; wiggum status --all lists them)`,
  ];
}

function taskLine(task: TaskEntry, group: string, nowMs: number): string {
  const progress =
    task.iteration === undefined
      ? ''
      : `  ${describeIterations(iterationCount(task.iteration, task.maxIterations, task.current !== undefined))}`;
  const step = task.step ? `  ${task.step}` : '';
  const last = task.lastOutcome === undefined ? '' : `  last: ${task.lastOutcome}`;
  const fragile = task.durable === false ? '  (memory NOT durable)' : '';
  const where = task.worktree === undefined ? '' : `  on ${task.worktree.branch} in ${task.worktree.path}`;
  const worker = task.worker === undefined || group !== 'running' ? '' : `  on worker ${task.worker.id}`;
  return `${task.id}${progress}${step}${doing(task, group, nowMs)}${worker}${last}${fragile}${where}`;
}

/** `box-7-k  ok  running 1 of 2  seen 3s ago  (harnesses claude, codex)`. */
function workerLine(worker: WorkerStatus, nowMs: number): string {
  const harnesses = worker.harnesses === null ? '' : `  (harnesses ${worker.harnesses.join(', ')})`;
  return `${worker.id}  ${worker.health}  running ${worker.running.length} of ${worker.concurrency}  seen ${elapsed(nowMs - worker.seenAtMs)} ago${harnesses}`;
}

/** What the task is doing, or why not, for the lines that say more than their group's title. */
function doing(task: TaskEntry, group: string, nowMs: number): string {
  if (task.foreground !== undefined) return `  running in a foreground wiggum run (pid ${task.foreground.pid})`;
  if (task.failure !== undefined)
    return `  the last attempt failed: ${oneLine(task.failure.message)}; tried again in ${elapsed(task.failure.retryAtMs - nowMs)}`;
  if (task.phase === 'stopped') return `  held by its stop flag (wiggum resume ${task.id} continues it)`;
  if (group !== 'running') return '';
  if (task.outage !== undefined) return `  ${outageWords(task, task.outage, nowMs)}`;
  if (task.phase === 'held') return `  ${task.waitingReason ?? 'held by the vault STOP'}`;
  if (task.phase === 'waiting') {
    if (task.waitingFor === 'usage-limit')
      return `  waiting for the usage limit${task.untilMs === undefined ? '' : ` (resets in ${elapsed(task.untilMs - nowMs)})`}`;
    if (task.waitingFor === 'landing')
      return `  waiting to land: ${oneLine(task.waitingReason ?? 'the base is not ready')}${task.untilMs === undefined ? '' : ` (tried again in ${elapsed(task.untilMs - nowMs)})`}`;
    if (task.waitingFor === 'retry')
      return `  waiting to retry${task.untilMs === undefined ? '' : ` (in ${elapsed(task.untilMs - nowMs)})`}`;
    // A reason this wiggum does not know by name (a newer daemon's): said as it is.
    return `  waiting${task.waitingFor === undefined ? '' : ` (${String(task.waitingFor)})`}${task.untilMs === undefined ? '' : ` until ${elapsed(task.untilMs - nowMs)} from now`}`;
  }
  return `  ${task.phase} ${elapsed(nowMs - task.sinceMs)}`;
}

/** A task waiting on its harness's outage: paused, not failed, and when it probes again. */
function outageWords(task: TaskEntry, outage: NonNullable<TaskEntry['outage']>, nowMs: number): string {
  const next =
    task.phase === 'running'
      ? 'probing it now'
      : task.untilMs === undefined
        ? 'paused'
        : `paused, probing again in ${elapsed(task.untilMs - nowMs)}`;
  return `waiting on harness ${outage.harness} (outage for ${elapsed(nowMs - outage.sinceMs)}): ${next}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 160 ? `${flat.slice(0, 157)}…` : flat;
}

/** A file the order of work holds for a dependency or a time: it runs by itself, nothing to fix. */
function waitsInOrder(wait: AuthorWait): boolean {
  return typeof wait.reason === 'object' && passesByItself(wait.reason);
}
