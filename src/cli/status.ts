import { WiggumError } from '../errors.js';
import { relative } from 'node:path';
import { elapsed } from '../daemon/dashboard.js';
import type { TaskEntry } from '../daemon/status.js';
import { inspectVault, taskEntry } from '../daemon/view.js';
import type { VaultView } from '../daemon/view.js';
import { describeIterations, iterationCount } from '../task/iteration-count.js';
import type { VaultLayout } from '../vault/layout.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';
import { plural } from '../plural.js';

/** `wiggum status [ID] [--json]`: works whether or not the daemon runs. */
export async function statusCommand(id: string | undefined, options: VaultOptions & { json?: boolean; watch?: boolean }): Promise<ExitCode> {
  if (options.watch === true) {
    if (id !== undefined || options.json === true) throw new WiggumError('E_USAGE', 'status --watch shows the whole vault: drop the task id and --json (wiggum logs ID --follow follows one task)');
    const { watchCommand } = await import('./watch.js');
    return watchCommand(options);
  }
  const { layout } = await openVault(options);
  const now = Date.now();
  if (id !== undefined) {
    // One task needs the full parse and its history: loaded only then.
    const { findTask } = await import('../vault/find-task.js');
    const { describeTask } = await import('./task-status.js');
    const task = await findTask(id, [layout.approved, layout.done, layout.rejected], layout.root);
    process.stdout.write(await describeTask(task, layout, await taskEntry(layout, task), options.json === true));
    return EXIT.complete;
  }
  const view = await inspectVault(layout, now);
  process.stdout.write(options.json === true ? `${JSON.stringify({ vault: layout.root, ...view }, null, 2)}\n` : renderView(view, layout, now));
  return EXIT.complete;
}

function renderView(view: VaultView, layout: VaultLayout, now: number): string {
  const lines: string[] = [];
  const daemon = view.daemon;
  lines.push(`vault ${layout.root}`);
  lines.push(daemon === null ? 'daemon: not running' : `daemon: ${daemon.lifecycle} (pid ${daemon.pid}, up ${elapsed(now - daemon.startedAtMs)}, ${daemon.concurrency} at a time)`);
  lines.push(`Approved ${view.counts.approved} · Done ${view.counts.done} · Rejected ${view.counts.rejected}`);
  if (view.held) lines.push('STOP exists: nothing new starts; running tasks hold before their next iteration');
  const groups: [string, TaskEntry[]][] = [
    ['running', view.tasks.filter((t) => t.phase === 'running' || t.phase === 'waiting' || t.phase === 'held')],
    ['queued', view.tasks.filter((t) => t.phase === 'queued')],
    ['stopped', view.tasks.filter((t) => t.phase === 'stopped')],
  ];
  for (const [title, tasks] of groups) {
    if (tasks.length === 0) continue;
    lines.push('', `${title}:`);
    for (const task of tasks) {
      const progress = task.iteration === undefined ? '' : `  ${describeIterations(iterationCount(task.iteration, task.maxIterations, task.current !== undefined))}`;
      const step = task.step ? `  ${task.step}` : '';
      const waitingForLimit = task.phase === 'waiting' && task.waitingFor === 'usage-limit';
      const time =
        title !== 'running' ? '' : waitingForLimit ? `  waiting for the usage limit${task.untilMs === undefined ? '' : ` (resets in ${elapsed(task.untilMs - now)})`}` : `  ${task.phase} ${elapsed(now - task.sinceMs)}`;
      const last = task.lastOutcome === undefined ? '' : `  last: ${task.lastOutcome}`;
      lines.push(`  ${task.id}${progress}${step}${time}${last}${task.durable === false ? '  (memory NOT durable)' : ''}`);
    }
  }
  if (view.waitingForAuthor.length > 0) {
    lines.push('', 'waiting for you (not run until fixed):');
    for (const wait of view.waitingForAuthor) lines.push(`  ${wait.name}: ${wait.message}`);
  }
  if (view.recent.length > 0) {
    lines.push('', 'recently finished:');
    for (const item of view.recent.slice(0, 10)) lines.push(`  ${item.status === 'done' ? 'done    ' : 'rejected'}  ${item.id ?? relative(layout.root, item.file)}${item.reason === undefined ? `  after ${plural(item.iterations, 'iteration')}` : `  ${item.reason.slice(0, 100)}`}`);
  }
  const fragile = view.tasks.filter((t) => t.durable === false).map((t) => t.id);
  if (fragile.length > 0) lines.push('', `WARNING: session memory is NOT durable for ${fragile.join(', ')}; see the daemon log`);
  return `${lines.join('\n')}\n`;
}
