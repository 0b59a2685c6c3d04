import { WiggumError } from '../errors.js';
import { durationMs } from '../config/units.js';
import { computeStats } from '../stats/figures.js';
import { readVaultFacts } from '../stats/read-facts.js';
import { renderStats } from '../stats/render.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';

export interface StatsOptions extends VaultOptions {
  since?: string;
  json?: boolean;
}

/** `wiggum stats [--since 7d] [--json]`: from the vault's files, whether or not the daemon runs. */
export async function statsCommand(options: StatsOptions): Promise<ExitCode> {
  const windowMs = options.since === undefined ? null : durationMs(options.since);
  if (windowMs === undefined)
    throw new WiggumError(
      'E_USAGE',
      `--since ${options.since ?? ''}: not a duration; write one like 7d, 24h, 30m (tasks that ended that long ago or later)`,
    );
  const { config, layout } = await openVault(options);
  const sinceMs = windowMs === null ? null : Date.now() - windowMs;
  const { facts, unreadableHistories } = await readVaultFacts(layout, config.harness.defaultName);
  const stats = computeStats(facts, sinceMs, unreadableHistories);
  if (options.json === true)
    process.stdout.write(
      `${JSON.stringify(
        {
          vault: layout.root,
          since: options.since ?? null,
          from: sinceMs === null ? null : new Date(sinceMs).toISOString(),
          overall: stats.overall,
          harnesses: stats.harnesses,
          unreadable: stats.unreadable,
        },
        null,
        2,
      )}\n`,
    );
  else process.stdout.write(renderStats(stats, layout.root, options.since ?? null));
  return EXIT.complete;
}
