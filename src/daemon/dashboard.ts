import { basename, extname } from 'node:path';
import { inertLine } from '../task/inert-text.js';
import type { WiggumConfig } from '../config/config.js';
import { countText, describeIterations } from '../task/iteration-count.js';
import { describeNotifier } from '../notify/describe.js';
import { plural } from '../plural.js';
import { STATE_TABLE, TASK_FOLDERS, stateWord } from '../task/states.js';
import type { TaskFolder } from '../task/states.js';
import { localStamp, localTime } from '../time/local-time.js';
import type { PictureTask } from './picture.js';
import { countOf, groupByState } from './state-groups.js';
import type { WorkerStatus } from './status.js';
import type { VaultView } from './view.js';
import { headlineText } from '../stats/render.js';

/** How many ended tasks of each ended state the page lists by name; the rest are counted. */
const ENDED_LISTED = 20;

/**
 * Dashboard.md: the daemon's picture for a person reading the vault in Obsidian. Every task is
 * under its state (src/task/states.ts), those that wait on a person first; task names are wiki
 * links into the folder the task is in; the file is rewritten whole (atomically), so edits to it are
 * lost, as it says.
 */
export function renderDashboard(view: VaultView, folders: WiggumConfig['folders'], nowMs: number): string {
  const lines: string[] = ['# wiggum', ''];
  lines.push(headerLine(view, nowMs), '');
  if (view.held)
    lines.push(
      '> [!warning] The vault is on hold',
      '> `STOP` exists at the vault root: no iteration starts until it is removed.',
      '',
    );
  if (view.sandbox?.state === 'unconfined' || view.sandbox?.state === 'unavailable')
    lines.push(
      `> [!danger] ${view.sandbox.state === 'unconfined' ? 'Agents run UNCONFINED' : 'Tasks wait for the sandbox'}`,
      `> ${view.sandbox.text}`,
      '',
    );
  const fragile = view.tasks.filter((task) => task.run?.durable === false);
  if (fragile.length > 0) {
    lines.push(
      '> [!danger] Memory is NOT durable',
      `> ${fragile.map((task) => task.id).join(', ')}: session memory is kept in memory only and is lost if wiggum stops. See the log.`,
      '',
    );
  }
  const names = folderNames(folders);
  lines.push(
    `| ${TASK_FOLDERS.map((folder) => names[folder]).join(' | ')} |`,
    `|${TASK_FOLDERS.map(() => ' --- |').join('')}`,
    `| ${TASK_FOLDERS.map((folder) => view.counts[folder]).join(' | ')} |`,
    '',
  );
  // The figures `wiggum stats` shows, over every ended task (wiggum stats --since 7d for a window).
  if (view.stats !== undefined) lines.push(`${headlineText(view.stats)}.`, '');
  const groups = groupByState(view.tasks);
  if (!groups.some((group) => group.state === 'running')) lines.push('Nothing is running.', '');
  const onWorkers = view.workers !== undefined || view.tasks.some((task) => task.worker !== undefined);
  for (const group of groups) {
    lines.push(`## ${capitalised(stateWord(group.state))} (${group.tasks.length})`, '');
    lines.push(`_${STATE_TABLE[group.state].meaning}._`, '');
    if (STATE_TABLE[group.state].atWork) lines.push(...workTable(group.tasks, names, onWorkers, nowMs));
    else lines.push(...taskList(group.tasks, names, nowMs));
    lines.push('');
  }
  if (view.workers !== undefined) lines.push(...workersSection(sortedWorkers(view.workers), nowMs));
  if (view.notifiers !== undefined && view.notifiers.length > 0) {
    lines.push('## Notifiers', '');
    for (const notifier of view.notifiers) lines.push(`- ${describeNotifier(notifier, nowMs)}`);
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The folder names of the config, by the state table's folder keys. */
function folderNames(folders: WiggumConfig['folders']): Record<TaskFolder, string> {
  return {
    approved: folders.approved,
    blocked: folders.blocked ?? 'Blocked',
    review: folders.review,
    done: folders.done,
    rejected: folders.rejected,
  };
}

/** The tasks at work: one table row each, with their count, step, what they do and since when. */
function workTable(
  tasks: readonly PictureTask[],
  names: Record<TaskFolder, string>,
  onWorkers: boolean,
  nowMs: number,
): string[] {
  const rows = [
    `| task |${onWorkers ? ' worker |' : ''} iteration | step | state | since | last outcome |`,
    `| --- |${onWorkers ? ' --- |' : ''} --- | --- | --- | --- | --- |`,
  ];
  for (const task of tasks) {
    const count = countOf(task);
    const worker = onWorkers ? ` ${task.worker?.id ?? '—'} |` : '';
    rows.push(
      `| ${link(names, task)} |${worker} ${count === null ? '—' : countText(count)} | ${task.run?.step ?? '—'} | ${phaseText(task, nowMs)} | ${task.run === undefined ? '—' : localTime(task.run.sinceMs, nowMs)} | ${task.run?.lastOutcome ?? '—'} |`,
    );
  }
  return rows;
}

/** The other tasks: a line each, with its count and what it waits for. */
function taskList(tasks: readonly PictureTask[], names: Record<TaskFolder, string>, nowMs: number): string[] {
  const ended = tasks.filter(
    (task) => STATE_TABLE[task.state].folder === 'done' || STATE_TABLE[task.state].folder === 'rejected',
  );
  // Ended tasks: the ones the daemon saw end (newest first), the older ones only counted.
  const shown =
    ended.length === 0 ? tasks : ended.filter((task) => task.endedAtMs !== undefined).slice(0, ENDED_LISTED);
  const lines = shown.map((task) => `- ${link(names, task)}${listDetail(task, nowMs)}`);
  const more = tasks.length - shown.length;
  if (more > 0) lines.push(`- and ${more} more in ${names[tasks[0]?.folder ?? 'done']}/`);
  return lines;
}

function listDetail(task: PictureTask, nowMs: number): string {
  // A task that has not finished an iteration shows no count: "0 done" says nothing.
  const counted = countOf(task);
  const count = counted === null || counted.done === 0 ? null : counted;
  const after = count === null ? '' : ` after ${plural(count.done, 'iteration')}`;
  const at = task.endedAtMs === undefined ? '' : `, at ${localTime(task.endedAtMs, nowMs)}`;
  switch (task.state) {
    case 'blocked':
      return `${after}: ${task.question === undefined || task.question === '' ? '(no question in the file)' : oneLine(task.question)}`;
    case 'rejected':
      return `${after}${task.reason === undefined ? '' : `: ${oneLine(task.reason)}`}${at}`;
    case 'done':
    case 'in-review':
      return `${after}${at}`;
    case 'stopped':
    case 'interrupted':
    case 'queued':
    case 'failing':
      return `${count === null ? '' : ` with ${describeIterations(count)}`}${failure(task, nowMs)}`;
    case 'needs-harness':
    case 'being-written':
    case 'waiting-for-you':
    case 'invalid':
    case 'running':
    case 'landing':
    case 'retrying':
    case 'usage-limit':
    case 'outage':
    case 'held':
    case 'review-slot':
    case 'waiting-on-dependency':
    case 'scheduled':
      return task.why === undefined ? after : `${after}: ${oneLine(task.why)}`;
  }
}

function failure(task: PictureTask, nowMs: number): string {
  const failed = task.run?.failure;
  return failed === undefined
    ? ''
    : `: the last attempt failed (${oneLine(failed.message)}); tried again at ${localTime(failed.retryAtMs, nowMs)}`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Who wrote the page and the daemon's true state. A daemon that stopped says when it stopped (its
 * last write is its stop), never its start time next to "stopped".
 */
function headerLine(view: VaultView, nowMs: number): string {
  const daemon = view.daemon;
  if (daemon === null) return `_Updated ${localStamp(nowMs)}. The daemon is not running._`;
  if (daemon.lifecycle === 'stopped') {
    return `_The daemon stopped at ${localStamp(view.updatedAtMs)} (pid ${daemon.pid}; it had run from ${localTime(daemon.startedAtMs, view.updatedAtMs)}). It is not running: \`wiggum start\` starts it again. Times are local._`;
  }
  return `_Updated ${localStamp(view.updatedAtMs)} by the daemon (pid ${daemon.pid}, ${daemon.lifecycle}, started at ${localTime(daemon.startedAtMs, view.updatedAtMs)}, ${daemon.concurrency} at a time). Times are local. wiggum rewrites this page: edits are lost._`;
}

function link(names: Record<TaskFolder, string>, task: PictureTask): string {
  return `[[${names[task.folder]}/${basename(task.name, extname(task.name))}]]`;
}

/** What a task at work does now; times are absolute (`retries at 14:02:10`): the page is not rewritten every second. */
function phaseText(task: PictureTask, nowMs: number): string {
  const run = task.run;
  const until = (word: string): string =>
    run?.untilMs === undefined ? '' : ` (${word} ${localTime(run.untilMs, nowMs)})`;
  switch (task.state) {
    case 'running':
      if (run?.foreground !== undefined) return `running in a foreground wiggum run (pid ${run.foreground.pid})`;
      return run?.attempt !== undefined && run.attempt > 0 ? `running (retry ${run.attempt})` : 'running';
    case 'outage':
      return `outage: waiting on harness ${run?.outage?.harness ?? '?'}${run?.outage === undefined ? '' : ` (since ${localTime(run.outage.sinceMs, nowMs)})`}`;
    case 'usage-limit':
      return `usage limit${until('resets at')}`;
    case 'retrying':
      return `retrying${until('at')}`;
    case 'landing':
      return `landing${task.why === undefined ? '' : `: ${oneLine(task.why)}`}${until('tried again at')}`;
    case 'held':
      return `held${task.why === undefined ? ' by STOP' : `: ${oneLine(task.why)}`}`;
    case 'blocked':
    case 'in-review':
    case 'needs-harness':
    case 'being-written':
    case 'waiting-for-you':
    case 'invalid':
    case 'failing':
    case 'queued':
    case 'review-slot':
    case 'waiting-on-dependency':
    case 'scheduled':
    case 'stopped':
    case 'interrupted':
    case 'done':
    case 'rejected':
      return stateWord(task.state);
  }
}

/** The workers in id order, whatever order status.json keeps its keys in. */
export function sortedWorkers(workers: Readonly<Record<string, WorkerStatus>>): WorkerStatus[] {
  return Object.values(workers).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const HEALTH_MARK: Record<WorkerStatus['health'], string> = { ok: '🟢', late: '🟡', gone: '🔴' };

/** `## Workers`: one line per worker with its health, what it runs and when it was last seen (a time of day). */
function workersSection(workers: readonly WorkerStatus[], nowMs: number): string[] {
  const lines = ['## Workers', ''];
  if (workers.length === 0)
    lines.push('No worker is connected: start one with `wiggum worker --queue redis://HOST:PORT`.');
  for (const worker of workers) {
    const runs = worker.running.length === 0 ? 'idle' : `runs ${worker.running.join(', ')}`;
    lines.push(
      `- ${HEALTH_MARK[worker.health] ?? ''} \`${worker.id}\` (${worker.host}, pid ${worker.pid}): ${worker.health}, ${worker.running.length} of ${worker.concurrency} (${runs}), last seen at ${localTime(worker.seenAtMs, nowMs)}`,
    );
  }
  lines.push('');
  return lines;
}

export function elapsed(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/** Agent or harness text on one line of the Dashboard: cut and escaped, so none of it renders (task/inert-text.ts). */
function oneLine(text: string): string {
  return inertLine(text, 160);
}
