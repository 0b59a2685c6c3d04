import { basename } from 'node:path';
import { elapsed, sortedWorkers } from '../daemon/dashboard.js';
import type { PictureTask } from '../daemon/picture.js';
import { countOf, groupByState } from '../daemon/state-groups.js';
import type { TaskEntry, WorkerStatus } from '../daemon/status.js';
import type { VaultView } from '../daemon/view.js';
import { describeNotifier } from '../notify/describe.js';
import { plural } from '../plural.js';
import { describeIterations } from '../task/iteration-count.js';
import { STATE_TABLE, TASK_FOLDERS, stateWord } from '../task/states.js';
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
 * `wiggum status` as text: every task of the vault under its state (src/task/states.ts), the
 * states that wait on a person first, each heading with its count and what moves it on; a long
 * group cut to its first lines and a count so that 4,000 queued tasks do not print 4,000 lines.
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
  lines.push(folderCountsLine(view.counts, layout));
  if (view.sandbox !== undefined) lines.push(`sandbox: ${view.sandbox.text}`);
  if (view.held) lines.push('STOP exists: nothing new starts; running tasks hold before their next iteration');
  for (const group of groupByState(view.tasks)) {
    lines.push('', `${stateWord(group.state)} (${group.tasks.length}): ${STATE_TABLE[group.state].meaning}`);
    lines.push(
      ...cut(
        group.tasks.map((task) => `  ${taskLine(task, nowMs)}`),
        options.all,
        stateWord(group.state),
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
  if (view.notifiers !== undefined && view.notifiers.length > 0) {
    lines.push('', 'notifiers:');
    for (const notifier of view.notifiers) lines.push(`  ${describeNotifier(notifier, nowMs)}`);
  }
  const fragile = view.tasks.filter((t) => t.run?.durable === false).map((t) => t.id);
  if (fragile.length > 0)
    lines.push('', `WARNING: session memory is NOT durable for ${fragile.join(', ')}; see the daemon log`);
  return `${lines.join('\n')}\n`;
}

/** `Approved 7 · Blocked 1 · Review 1 · Done 3 · Rejected 2`, under the folders' own names. */
function folderCountsLine(counts: VaultView['counts'], layout: VaultLayout): string {
  return TASK_FOLDERS.map((folder) => `${basename(layout[folder])} ${counts[folder]}`).join(' · ');
}

/** The first lines of a long group and how many more there are. */
function cut(lines: string[], all: boolean, what: string): string[] {
  if (all || lines.length <= LONG_GROUP) return lines;
  return [
    ...lines.slice(0, SHOWN),
    `  … and ${lines.length - SHOWN} more ${what} (${lines.length} in all; wiggum status --all lists them)`,
  ];
}

function taskLine(task: PictureTask, nowMs: number): string {
  const count = countOf(task);
  const ended = STATE_TABLE[task.state].folder !== 'approved';
  // A task that has not finished an iteration yet shows no count: "0 done" says nothing.
  const progress =
    count === null || (count.done === 0 && count.running === null)
      ? ''
      : ended
        ? `  after ${plural(count.done, 'iteration')}`
        : `  ${describeIterations(count)}`;
  const run = task.run;
  const step = run?.step ? `  ${run.step}` : '';
  const last = run?.lastOutcome === undefined ? '' : `  last: ${run.lastOutcome}`;
  const fragile = run?.durable === false ? '  (memory NOT durable)' : '';
  const where = run?.worktree === undefined ? '' : `  on ${run.worktree.branch} in ${run.worktree.path}`;
  const worker = task.worker === undefined ? '' : `  on worker ${task.worker.id}`;
  return `${task.id}${progress}${step}${doing(task, nowMs)}${worker}${last}${fragile}${where}`;
}

/** `box-7-k  ok  running 1 of 2  seen 3s ago  (harnesses claude, codex)`. */
function workerLine(worker: WorkerStatus, nowMs: number): string {
  const harnesses = worker.harnesses === null ? '' : `  (harnesses ${worker.harnesses.join(', ')})`;
  return `${worker.id}  ${worker.health}  running ${worker.running.length} of ${worker.concurrency}  seen ${elapsed(nowMs - worker.seenAtMs)} ago${harnesses}`;
}

/** What the task is doing, or why not, beyond what its state's heading says. */
function doing(task: PictureTask, nowMs: number): string {
  const run = task.run;
  const until = (word: string): string =>
    run?.untilMs === undefined ? '' : ` (${word} ${elapsed(run.untilMs - nowMs)})`;
  switch (task.state) {
    case 'running':
      if (run?.foreground !== undefined) return `  running in a foreground wiggum run (pid ${run.foreground.pid})`;
      return run === undefined ? '' : `  running ${elapsed(nowMs - run.sinceMs)}`;
    case 'outage':
      return run?.outage === undefined ? '' : `  ${outageWords(task, run.outage, nowMs)}`;
    case 'usage-limit':
      return `  waiting for the usage limit${until('resets in')}`;
    case 'landing':
      return `  waiting to land: ${oneLine(task.why ?? 'the base is not ready')}${until('tried again in')}`;
    case 'retrying':
      return `  waiting to retry${until('in')}`;
    case 'failing':
      return `  the last attempt failed: ${oneLine(task.why ?? 'unknown')}; tried again in ${elapsed((run?.failure?.retryAtMs ?? nowMs) - nowMs)}`;
    case 'held':
    case 'review-slot':
      return task.why === undefined ? '' : `  ${oneLine(task.why)}`;
    case 'stopped':
      return `  held by its stop flag (wiggum resume ${task.id} continues it)`;
    case 'blocked':
      return `: ${task.question === undefined || task.question === '' ? '(no question in the file)' : task.question}`;
    case 'rejected':
      return task.reason === undefined ? '' : `: ${oneLine(task.reason).slice(0, 100)}`;
    case 'needs-harness':
    case 'being-written':
    case 'waiting-for-you':
    case 'waiting-on-dependency':
    case 'scheduled':
    case 'invalid':
      return task.why === undefined ? '' : `: ${task.why}`;
    case 'in-review':
    case 'queued':
    case 'interrupted':
    case 'done':
      return '';
  }
}

/** A task waiting on its harness's outage: paused, not failed, and when it probes again. */
function outageWords(task: PictureTask, outage: NonNullable<TaskEntry['outage']>, nowMs: number): string {
  const untilMs = task.run?.untilMs;
  const next =
    task.run?.current !== undefined
      ? 'probing it now'
      : untilMs === undefined
        ? 'paused'
        : `paused, probing again in ${elapsed(untilMs - nowMs)}`;
  return `waiting on harness ${outage.harness} (outage for ${elapsed(nowMs - outage.sinceMs)}): ${next}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 160 ? `${flat.slice(0, 157)}…` : flat;
}
