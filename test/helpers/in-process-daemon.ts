import type { DaemonOptions } from '../../src/daemon/surface.js';
import { systemClock } from '../../src/time/clock.js';
import { captureLogger } from './capture-logger.js';
import type { TestVault } from './vault.js';

/**
 * What `startDaemon` takes to run a real daemon in the test's own process on `vault`: its config
 * from the vault alone, the system clock, the process's environment and a logger whose lines go
 * nowhere (pass `createLogger` in `more` to read them).
 */
export function inProcessDaemonOptions(
  vault: Pick<TestVault, 'root'>,
  more: Partial<DaemonOptions> = {},
): DaemonOptions {
  const { logger } = captureLogger();
  return {
    vault: vault.root,
    config: { vault: vault.root },
    clock: systemClock,
    random: Math.random,
    env: process.env,
    createLogger: () => logger,
    ...more,
  };
}
