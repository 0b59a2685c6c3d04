import type { WiggumConfig } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { TaskEngine } from '../loop/request.js';
import type { RunHost } from '../loop/run-host.js';
import type { Clock } from '../time/clock.js';
import type { TypedEvents } from '../typed-events.js';
import type { VaultLayout } from '../vault/layout.js';
import type { VaultWatcher } from '../vault/watcher.js';
import type { AuthorWaits } from './author-waits.js';
import type { DashboardFigures } from './dashboard-figures.js';
import type { DaemonEvents } from './events.js';
import type { IdleCheck } from './idle-check.js';
import type { DaemonNotifications } from './notifications.js';
import type { RunningSessions } from './renames.js';
import type { ReviewDesk } from './review-desk.js';
import type { StatusTracker } from './status-tracker.js';
import type { TaskQueue } from './task-queue.js';

/**
 * The daemon's parts, as the composition root (daemon.ts) holds them and hands them to its
 * services; each service takes the few it uses (a `Pick`) and reads them when it acts, so it sees
 * the config a SIGHUP loaded and a drain that began.
 */
export interface DaemonParts {
  /** The config as it stands: a SIGHUP replaces it (a running task keeps the one it started with). */
  readonly config: WiggumConfig;
  readonly layout: VaultLayout;
  readonly clock: Clock;
  readonly random: () => number;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly events: TypedEvents<DaemonEvents>;
  /** The vault as every run's host: one pause board, so a usage limit one task's agent hit holds every task on that account. */
  readonly runHost: RunHost;
  /** With `--queue`: runs go to workers; undefined: they run here. */
  readonly engine: TaskEngine | undefined;
  /** Aborted when the drain grace runs out (or on a second signal): every running agent is killed. */
  readonly killAgents: AbortController;
  /** What status.json and the Dashboard say. */
  readonly tracker: StatusTracker;
  readonly queue: TaskQueue;
  readonly watcher: VaultWatcher;
  /** Files in Approved/ that wait for their author (empty, no harness named). */
  readonly authorWaits: AuthorWaits;
  /** The session of each running task, to know its file again when its author renames it. */
  readonly sessions: RunningSessions;
  /** Review/: how many wait there, the tasks held for `review.max_pending`, approvals by hand. */
  readonly reviews: ReviewDesk;
  /** Events to the notifiers (`notify:`), kept in the outbox and sent in the background. */
  readonly notifications: DaemonNotifications;
  readonly figures: DashboardFigures;
  /** `--exit-when-idle`: null without it. */
  readonly idle: IdleCheck | null;
  /** True once a drain began: nothing new is started. */
  readonly draining: boolean;
  /** The status files are written again soon. */
  changed(): void;
}
