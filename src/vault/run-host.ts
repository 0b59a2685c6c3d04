import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Logger } from '../log/logger.js';
import { AccountPauses } from '../loop/account-pauses.js';
import type { EndingDeps } from '../loop/ending.js';
import { LOCAL_ENDINGS } from '../loop/endings.js';
import type { EndKind, PauseBoard, RunHost, RunSignals, TaskFileHome } from '../loop/run-host.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from './layout.js';
import { stopFlagFor } from './layout.js';
import { moveWithoutClobber } from './move.js';
import { isTaskFileName } from './names.js';

/**
 * The vault as a run's host (loop/run-host.ts), for the daemon, `wiggum run` and `ralph`: the task
 * file lives in Approved/ and ends in Done/, Rejected/, Review/ or Blocked/; its report is written
 * into the file itself; the vault's `STOP` holds every run; pauses are the process's own, keyed by
 * account. `pauses` is shared by every run of a process (the daemon's one board); a fresh one by
 * default. `signals` replaces the hold (a queue worker's private copy holds on Redis, not a file).
 */
export function vaultRunHost(
  layout: VaultLayout,
  options: { pauses?: PauseBoard; signals?: RunSignals; reports?: RunHost['reports'] } = {},
): RunHost {
  return {
    places: layout,
    taskFile: vaultTaskFileHome(layout),
    reports: options.reports ?? { endings: LOCAL_ENDINGS },
    signals: options.signals ?? { held: () => existsSync(layout.stopFile) },
    pauses: options.pauses ?? new AccountPauses(),
  };
}

/** The vault's folders as a task file's home: a move never overwrites, and drops the task's stop flag. */
export function vaultTaskFileHome(layout: VaultLayout): TaskFileHome {
  const folders: Record<EndKind, string> = {
    done: layout.done,
    rejected: layout.rejected,
    review: layout.review,
    blocked: layout.blocked,
  };
  return {
    endFolder: (kind) => folders[kind],
    async moveToEnd(kind, file) {
      const destination = await moveWithoutClobber(file, folders[kind]);
      await rm(stopFlagFor(file), { force: true });
      return destination;
    },
    isTaskFileName,
  };
}

/** What the vault's endings need, outside a run (the daemon finishing cut moves, the queue host). */
export function vaultEndingDeps(layout: VaultLayout, logger: Logger, clock: Clock): EndingDeps {
  return { places: layout, taskFile: vaultTaskFileHome(layout), logger, clock };
}
