import type { Release } from '../releasers.js';
import { EXIT } from './exit-codes.js';

/** What a command does with SIGINT and SIGTERM. */
export interface StopSignalHandlers {
  /** The first signal: stop cleanly (harness stopped, checkpoint written, everything released). */
  stop(signal: NodeJS.Signals): void;
  /**
   * A second signal, just before the process exits with code 3 (`EXIT.stopped`): what cannot wait
   * for the clean stop, such as killing the agents that still run.
   */
  beforeExit?(signal: NodeJS.Signals): void;
}

/**
 * The one stop-signal shape of `start`, `run` and `ralph`: the first SIGINT or SIGTERM asks for a
 * clean stop; a second one exits at once with code 3, leaving files as consistent as their atomic
 * writes keep them. Installed before anything starts, so that no signal meets Node's default action
 * (an exit without a checkpoint); the returned release removes the handlers.
 */
export function installStopSignals(handlers: StopSignalHandlers): Release {
  let received = 0;
  const handler = (signal: NodeJS.Signals): void => {
    received += 1;
    if (received === 1) {
      handlers.stop(signal);
      return;
    }
    handlers.beforeExit?.(signal);
    process.exit(EXIT.stopped);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
