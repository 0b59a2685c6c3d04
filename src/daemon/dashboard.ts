import { basename, extname } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { countText, describeIterations, iterationCount } from '../task/iteration-count.js';
import { describeNotifier } from '../notify/describe.js';
import { passesByItself } from '../task/order.js';
import { localStamp, localTime } from '../time/local-time.js';
import type { TaskEntry, WorkerStatus } from './status.js';
import type { VaultView } from './view.js';
import { headlineText } from '../stats/render.js';

/**
 * Dashboard.md: the daemon's picture for a person reading the vault in Obsidian. Task names are
 * wiki links; the file is rewritten whole (atomically), so edits to it are lost, as it says.
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
  const fragile = view.tasks.filter((task) => task.durable === false);
  if (fragile.length > 0) {
    lines.push(
      '> [!danger] Memory is NOT durable',
      `> ${fragile.map((task) => task.id).join(', ')}: session memory is kept in memory only and is lost if wiggum stops. See the log.`,
      '',
    );
  }

  lines.push(
    `| ${folders.approved} | ${folders.done} | ${folders.rejected} |`,
    '| --- | --- | --- |',
    `| ${view.counts.approved} | ${view.counts.done} | ${view.counts.rejected} |`,
    '',
  );
  // The figures `wiggum stats` shows, over every ended task (wiggum stats --since 7d for a window).
  if (view.stats !== undefined) lines.push(`${headlineText(view.stats)}.`, '');

  const running = view.tasks.filter(
    (task) => task.phase === 'running' || task.phase === 'waiting' || task.phase === 'held',
  );
  lines.push('## Running', '');
  if (running.length === 0) lines.push('Nothing is running.', '');
  else {
    // Tasks run on workers (queue mode): a column names each one's worker; without a queue, no column.
    const onWorkers = view.workers !== undefined || running.some((task) => task.worker !== undefined);
    lines.push(
      `| task |${onWorkers ? ' worker |' : ''} iteration | step | state | since | last outcome |`,
      `| --- |${onWorkers ? ' --- |' : ''} --- | --- | --- | --- | --- |`,
    );
    for (const task of running) {
      const worker = onWorkers ? ` ${task.worker?.id ?? '—'} |` : '';
      lines.push(
        `| ${link(folders.approved, task)} |${worker} ${task.iteration === undefined ? '—' : countText(iterationCount(task.iteration, task.maxIterations, task.current !== undefined))} | ${task.step ?? '—'} | ${phaseText(task, nowMs)} | ${localTime(task.sinceMs, nowMs)} | ${task.lastOutcome ?? '—'} |`,
      );
    }
    lines.push('');
  }
  if (view.workers !== undefined) lines.push(...workersSection(sortedWorkers(view.workers), nowMs));

  const blocked = view.blocked ?? [];
  if (blocked.length > 0) {
    lines.push(
      '## Blocked',
      '',
      `These tasks in ${folders.blocked ?? 'Blocked'}/ wait for your answer: write it under \`## Answer\` and move the file back to ${folders.approved}/ (or run \`wiggum answer ID "…"\`).`,
      '',
    );
    for (const task of blocked)
      lines.push(
        `- [[${folders.blocked ?? 'Blocked'}/${basename(task.name, extname(task.name))}]]: ${task.question === '' ? '(no question in the file)' : task.question}`,
      );
    lines.push('');
  }

  // The order of work holds these (a dependency, a time): they start by themselves.
  const inOrder = view.waitingForAuthor.filter(
    (wait) => typeof wait.reason === 'object' && passesByItself(wait.reason),
  );
  const forYou = view.waitingForAuthor.filter((wait) => !inOrder.includes(wait));
  if (inOrder.length > 0) {
    lines.push('## Waiting', '', 'These tasks in Approved/ start once what they wait for comes:', '');
    for (const wait of inOrder)
      lines.push(`- [[${folders.approved}/${basename(wait.name, extname(wait.name))}]]: ${wait.message}`);
    lines.push('');
  }
  if (forYou.length > 0) {
    lines.push('## Waiting for you', '', 'These files in Approved/ do not run until they are fixed:', '');
    for (const wait of forYou)
      lines.push(`- [[${folders.approved}/${basename(wait.name, extname(wait.name))}]]: ${wait.message}`);
    lines.push('');
  }

  const queued = view.tasks.filter((task) => task.phase === 'queued');
  const stopped = view.tasks.filter((task) => task.phase === 'stopped');
  const failure = (task: TaskEntry): string =>
    task.failure === undefined
      ? ''
      : `: the last attempt failed (${oneLine(task.failure.message)}); tried again at ${localTime(task.failure.retryAtMs, nowMs)}`;
  if (queued.length > 0)
    lines.push('## Queued', '', ...queued.map((task) => `- ${link(folders.approved, task)}${failure(task)}`), '');
  if (stopped.length > 0)
    lines.push(
      '## Stopped',
      '',
      'Remove the `.stop` file (or run `wiggum resume ID`) to continue from the checkpoint.',
      '',
      ...stopped.map(
        (task) =>
          `- ${link(folders.approved, task)} with ${describeIterations(iterationCount(task.iteration, task.maxIterations, false))}`,
      ),
      '',
    );

  if (view.recent.length > 0) {
    lines.push('## Recently finished', '');
    for (const item of view.recent) {
      const folder = item.status === 'done' ? folders.done : folders.rejected;
      const target = `[[${folder}/${basename(item.file, extname(item.file))}]]`;
      lines.push(
        item.status === 'done'
          ? `- ✅ ${target}: done after ${item.iterations} iteration${item.iterations === 1 ? '' : 's'}, at ${localTime(item.atMs, nowMs)}`
          : `- ❌ ${target}: ${oneLine(item.reason ?? 'rejected')}, at ${localTime(item.atMs, nowMs)}`,
      );
    }
    lines.push('');
  }
  if (view.notifiers !== undefined && view.notifiers.length > 0) {
    lines.push('## Notifiers', '');
    for (const notifier of view.notifiers) lines.push(`- ${describeNotifier(notifier, nowMs)}`);
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
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

function link(folder: string, task: TaskEntry): string {
  return `[[${folder}/${basename(task.name, extname(task.name))}]]`;
}

/** What a task does now; times are absolute (`retries at 14:02:10`): the page is not rewritten every second. */
function phaseText(task: TaskEntry, nowMs: number): string {
  if (task.foreground !== undefined) return `running in a foreground wiggum run (pid ${task.foreground.pid})`;
  if (task.outage !== undefined)
    return `waiting on harness ${task.outage.harness} (outage since ${localTime(task.outage.sinceMs, nowMs)})`;
  if (task.phase === 'waiting' && task.waitingFor === 'usage-limit') {
    return task.untilMs === undefined
      ? 'waiting for the usage limit'
      : `waiting for the usage limit (resets at ${localTime(task.untilMs, nowMs)})`;
  }
  if (task.phase === 'waiting')
    return task.untilMs === undefined ? 'waiting' : `waiting to retry at ${localTime(task.untilMs, nowMs)}`;
  if (task.phase === 'held') return task.waitingReason ?? 'held by STOP';
  return task.attempt !== undefined && task.attempt > 0 ? `running (retry ${task.attempt})` : 'running';
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

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 160 ? `${flat.slice(0, 157)}…` : flat;
}
