import { resolve } from 'node:path';
import { loadConfig } from '../config/load.js';
import { WiggumError } from '../errors.js';
import { createLogger } from '../log/logger.js';
import type { LogLevel, Logger } from '../log/logger.js';
import { parseQueueUrl } from '../queue/address.js';
import { startQueueWorker, workerRoot } from '../queue/worker-process.js';
import type { RunningQueueWorker } from '../queue/worker-process.js';
import { systemClock } from '../time/clock.js';
import type { ExitCode } from './exit-codes.js';
import { installStopSignals } from './signals.js';

export interface WorkerOptions {
  queue?: string;
  concurrency?: number;
  harnesses?: string;
  config?: string;
  logLevel?: LogLevel;
}

/**
 * `wiggum worker`: takes task runs from the vault host's queue and runs them here, in the current
 * folder's `.wiggum/worker/` (clones and private task copies; never a vault). Its config is layered
 * as the host's: the defaults, `.wiggum/config.yaml` in the current folder, then `--config FILE`.
 * The first SIGTERM or SIGINT hands every run back to the queue and exits 0; a second exits at once.
 */
export async function workerCommand(options: WorkerOptions): Promise<ExitCode> {
  const cwd = process.cwd();
  const config = await loadConfig({
    vault: cwd,
    ...(options.config === undefined ? {} : { file: resolve(options.config) }),
  });
  const url = options.queue ?? config.queue.url;
  if (url === null || url === '')
    throw new WiggumError(
      'E_QUEUE_URL',
      'a worker needs the queue the vault host uses: give --queue redis://HOST:PORT, or queue.url in the config',
    );
  const address = parseQueueUrl(url);
  const harnesses =
    options.harnesses === undefined
      ? null
      : options.harnesses
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '');
  const logger: Logger = createLogger({ level: options.logLevel ?? config.log.level, fd: 1, relativeTo: cwd });
  let worker: RunningQueueWorker | null = null;
  let stopSignal: NodeJS.Signals | null = null;
  const removeSignals = installStopSignals({
    stop: (signal) => {
      if (worker === null) stopSignal = signal;
      else worker.stop(signal);
    },
  });
  try {
    worker = await startQueueWorker({
      address,
      config,
      root: workerRoot(cwd),
      concurrency: options.concurrency ?? 1,
      harnesses,
      clock: systemClock,
      random: Math.random,
      logger,
      env: process.env,
    });
    if (stopSignal !== null) worker.stop(stopSignal);
    const code = await worker.stopped;
    setTimeout(() => process.exit(code), 1_000).unref();
    return code as ExitCode;
  } finally {
    await removeSignals();
  }
}
