import type { Logger } from '../log/logger.js';

/**
 * SIGINT and SIGTERM: the first asks for a clean stop (harness stopped, checkpoint written); a
 * second one exits at once with code 3, leaving files as consistent as their atomic writes keep them.
 */
export function onStopSignals(stop: () => void, logger: Logger): { dispose(): void } {
  let received = 0;
  const handler = (signal: NodeJS.Signals): void => {
    received += 1;
    if (received === 1) {
      logger.warn(
        { event: 'signal.stopping', signal },
        `${signal}: stopping the harness and checkpointing (send it again to exit at once)`,
      );
      stop();
    } else {
      logger.warn({ event: 'signal.forced-exit', signal }, `${signal} again: exiting at once`);
      process.exit(3);
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
