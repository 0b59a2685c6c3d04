import { resolve } from 'node:path';
import { WiggumError, isWiggumError } from '../errors.js';
import { correctStaleDashboard } from '../daemon/stale-dashboard.js';
import { inspectVault } from '../daemon/view.js';
import { requireVault } from '../vault/find-root.js';
import type { VaultLayout } from '../vault/layout.js';
import { vaultLayout } from '../vault/layout.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';
import { renderStatus } from './status-text.js';

/** `wiggum status [ID] [--json]`: works whether or not the daemon runs. */
export async function statusCommand(
  id: string | undefined,
  options: VaultOptions & { json?: boolean; watch?: boolean; all?: boolean },
): Promise<ExitCode> {
  if (options.watch === true) {
    if (id !== undefined || options.json === true)
      throw new WiggumError(
        'E_USAGE',
        'status --watch shows the whole vault: drop the task id and --json (wiggum logs ID --follow follows one task)',
      );
    const { watchCommand } = await import('./watch.js');
    return watchCommand(options);
  }
  const { layout, configProblem, defaultHarness } = await openForStatus(options);
  const now = Date.now();
  if (id !== undefined) {
    // One task needs the full parse and its history: loaded only then.
    const { findTaskFile } = await import('../vault/find-task.js');
    const { describeTask } = await import('../inspect/task-status.js');
    const found = await findTaskFile(id, layout);
    process.stdout.write(await describeTask(found, layout, undefined, options.json === true, defaultHarness));
    return EXIT.complete;
  }
  const view = await inspectVault(layout, now, defaultHarness);
  // A daemon killed without its drain left the page saying it runs: set it right (never fatal to status).
  await correctStaleDashboard(layout, view, now).catch(() => false);
  if (options.json === true)
    process.stdout.write(
      `${JSON.stringify({ vault: layout.root, ...view, ...(configProblem === null ? {} : { configProblem }) }, null, 2)}\n`,
    );
  else process.stdout.write(renderStatus(view, layout, now, { all: options.all === true, configProblem }));
  return EXIT.complete;
}

/**
 * The vault and its layout, even while its configuration is invalid: status is what a user runs to
 * see what is going on, and a running daemon that refused a bad reload keeps working. The folders
 * are then read under their default names, and the problem is said.
 */
async function openForStatus(
  options: VaultOptions,
): Promise<{ layout: VaultLayout; configProblem: string | null; defaultHarness?: string | null }> {
  try {
    const { layout, config } = await openVault(options);
    return { layout, configProblem: null, defaultHarness: config.harness.defaultName };
  } catch (error) {
    if (!isWiggumError(error, 'E_CONFIG')) throw error;
    const root = resolve(options.vault ?? process.cwd());
    await requireVault(root);
    const { loadConfig } = await import('../config/load.js');
    const defaults = await loadConfig({});
    const problems = error.message
      .split('\n')
      .slice(1)
      .filter((line) => line.trim() !== '');
    const first = problems[0] ?? error.message;
    const more = problems.length > 1 ? ` and ${problems.length - 1} more` : '';
    return {
      layout: vaultLayout(root, defaults),
      configProblem: `INVALID: ${first}${more} (wiggum validate lists every problem; the folders are read under their default names)`,
    };
  }
}
