import type { Logger } from '../../src/log/logger.js';
import type { RunTaskDeps } from '../../src/loop/request.js';
import { vaultRunHost } from '../../src/vault/run-host.js';
import { FakeClock } from './fake-clock.js';
import type { TestVault } from './vault.js';

/** What `runTask` runs on in a test vault: the vault as its host, a fake clock, a fixed random. */
export function runDeps(vault: TestVault, logger: Logger): RunTaskDeps {
  return {
    config: vault.config,
    host: vaultRunHost(vault.layout),
    clock: new FakeClock(),
    random: () => 0.5,
    logger,
    env: process.env,
  };
}
