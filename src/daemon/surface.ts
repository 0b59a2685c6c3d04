import type { WiggumConfig } from '../config/config.js';
import type { ConfigSources } from '../config/sources.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../time/clock.js';
import type { TypedEvents } from '../typed-events.js';
import type { VaultLayout } from '../vault/layout.js';
import type { DaemonEvents } from './events.js';
import type { DaemonStatus } from './status.js';
import type { TaskQueueFactory } from './task-queue.js';

/* What `startDaemon` (daemon.ts) takes, what it gives its caller, and what a part beside it sees. */

export interface DaemonOptions {
  vault: string;
  config: ConfigSources;
  clock: Clock;
  random: () => number;
  env: NodeJS.ProcessEnv;
  /** Built once the config is known (its log level). */
  createLogger: (config: WiggumConfig) => Logger;
  /** Drain and exit once nothing is queued or running and Approved/ holds nothing to start (demo, CI). */
  exitWhenIdle?: boolean;
  /** The queue; by default the in-process one (p-queue). */
  createQueue?: TaskQueueFactory;
  /** `--queue redis://…`: task runs go to `wiggum worker` processes (over `queue.url` in the config). */
  queueUrl?: string;
  /**
   * A part that lives beside the daemon and reads it (the HTTP API, `daemon.http`), started once
   * the daemon's own parts are up and released first in a drain; null: nothing to start. A failure
   * to start it fails the start (a port in use is said, not ignored).
   */
  beside?: (daemon: DaemonSurface) => Promise<{ release(): Promise<void> } | null>;
}

/** What a part beside the daemon sees of it: the config it started with, its folders, its events. */
export interface DaemonSurface {
  config: WiggumConfig;
  layout: VaultLayout;
  events: TypedEvents<DaemonEvents>;
  clock: Clock;
  logger: Logger;
  /** When this daemon started (its clock). */
  startedAtMs: number;
  /** What it would write to status.json now: its own picture, fresher than the file (written at most every 200 ms). */
  status(): DaemonStatus;
}

export interface RunningDaemon {
  /** Resolves once the daemon has stopped and released everything: 0, or 1 when a part could not be released. */
  stopped: Promise<number>;
  /** What happens inside, as typed events. */
  events: TypedEvents<DaemonEvents>;
  /** SIGTERM/SIGINT: stop starting work, stop every harness, checkpoint, release, exit 0. */
  drain(why: string): void;
  /**
   * A second signal: kill every agent at once, before the caller exits the process (code 3); files
   * stay consistent because every write is atomic. The exit itself is the CLI's: see docs/architecture.md.
   */
  killAgentsNow(): void;
  /** SIGHUP: reload and check the configuration; a bad one is logged and the old one kept. */
  reload(): Promise<void>;
  /** The process is crashing: what must outlive it is written now, synchronously (the notifiers' `daemon` event). */
  crashed(error: unknown): void;
}
