import { join, resolve } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { liveSecretMask } from '../config/secret-values.js';
import { startDaemon } from '../daemon/daemon.js';
import type { RunningDaemon } from '../daemon/surface.js';
import { LiveLine } from '../log/live-line.js';
import { createLogger } from '../log/logger.js';
import { showRunningTasks } from './progress-line.js';
import type { LogLevel, Logger } from '../log/logger.js';
import { systemClock } from '../time/clock.js';
import { requireVault } from '../vault/find-root.js';
import type { ExitCode } from './exit-codes.js';
import { installStopSignals } from './signals.js';

/** How long the process may linger once the daemon has stopped. */
const EXIT_AFTER_STOP_MS = 1_000;

export interface StartOptions {
  vault?: string;
  config?: string;
  concurrency?: number;
  logLevel?: LogLevel;
  exitWhenIdle?: boolean;
  queue?: string;
}

/**
 * `wiggum start`: the daemon, in the foreground (systemd runs it so). The first SIGTERM or SIGINT
 * drains (no new work, harnesses stopped, tasks checkpointed, exit 0); a second exits at once;
 * SIGHUP reloads the configuration.
 */
export async function startCommand(options: StartOptions): Promise<ExitCode> {
  const vault = resolve(options.vault ?? process.cwd());
  // Not a vault: say so and exit, rather than create the folders and watch them forever.
  await requireVault(vault);
  let logger: Logger | null = null;
  let daemon: RunningDaemon | null = null;
  // Installed before the daemon starts: a signal during start-up is acted on once it is up,
  // instead of killing the process with Node's default action.
  const startUp: { stopSignal: NodeJS.Signals | null } = { stopSignal: null };
  let reloadWanted = false;
  const removeStopSignals = installStopSignals({
    stop: (signal) => {
      if (daemon === null) startUp.stopSignal = signal;
      else daemon.drain(signal);
    },
    beforeExit: () => daemon?.killAgentsNow(),
  });
  const onHup = (): void => {
    if (daemon === null) reloadWanted = true;
    else void daemon.reload();
  };
  const onCrash = (error: unknown): void => {
    logger?.fatal(
      { event: 'wiggum.crashed', err: error },
      'wiggum crashed; task files are consistent and resume at the next start',
    );
    // The notifiers hear of it from the next start (the event is kept in the outbox).
    try {
      daemon?.crashed(error);
    } catch {
      // Exiting is what matters now.
    }
    process.exit(1);
  };
  process.on('SIGHUP', onHup);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  // On a terminal, a line under the log shows every running task's progress.
  const liveLine = process.stdout.isTTY ? new LiveLine(process.stdout, () => process.stdout.columns) : null;
  try {
    daemon = await startDaemon({
      vault,
      config: {
        vault,
        ...(options.config === undefined ? {} : { file: options.config }),
        ...(options.concurrency === undefined ? {} : { overrides: { daemon: { concurrency: options.concurrency } } }),
      },
      clock: systemClock,
      random: Math.random,
      env: process.env,
      exitWhenIdle: options.exitWhenIdle === true,
      ...(options.queue === undefined ? {} : { queueUrl: options.queue }),
      // Loaded only when configured: the server is not the daemon's to pay for otherwise.
      beside: async (surface) =>
        surface.config.daemon.http.listen === null
          ? null
          : (await import('../http/start-api.js')).startHttpApi(surface),
      createLogger: (config) => (logger = daemonLogger(config, vault, options.logLevel, liveLine)),
    });
    const stopShowing = liveLine === null ? null : showRunningTasks(daemon, liveLine);
    void daemon.stopped.then(() => stopShowing?.());
    if (startUp.stopSignal !== null) daemon.drain(`${startUp.stopSignal} during start-up`);
    if (reloadWanted) void daemon.reload();
    const code = (await daemon.stopped) as ExitCode;
    // Everything is released and checkpointed; a run that would not end after its agent was killed
    // (a process stuck in the kernel, waited for in vain) must not keep the daemon alive. Unref'd:
    // it fires only if something else still holds the process. A real timer on purpose: it guards
    // the process itself against real handles that outlive the daemon, which no injected clock sees.
    setTimeout(() => process.exit(code), EXIT_AFTER_STOP_MS).unref();
    return code;
  } finally {
    await removeStopSignals();
    process.off('SIGHUP', onHup);
  }
}

/** The daemon's log on stdout, every line masked with its secrets (config/secret-values.ts). */
function daemonLogger(
  config: WiggumConfig,
  vault: string,
  level: LogLevel | undefined,
  liveLine: LiveLine | null,
): Logger {
  return createLogger({
    level: level ?? config.log.level,
    fd: 1,
    relativeTo: vault,
    mask: liveSecretMask(config, process.env, join(vault, '.wiggum')),
    ...(liveLine === null ? {} : { liveLine }),
  });
}
