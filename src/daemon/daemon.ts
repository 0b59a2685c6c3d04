import { announceSandbox } from './sandbox-announce.js';
import type { WiggumConfig } from '../config/config.js';
import { checkConfig, loadConfig } from '../config/load.js';
import type { TypedEvents } from '../typed-events.js';
import type { Release, Releasers } from '../releasers.js';
import type { Logger } from '../log/logger.js';
import type { TaskEngine } from '../loop/request.js';
import type { RunHost } from '../loop/run-host.js';
import { formatProblem } from '../problem.js';
import type { QueueHost } from '../queue/queue-host.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
import { vaultLayout } from '../vault/layout.js';
import { vaultRunHost } from '../vault/run-host.js';
import type { VaultWatcher } from '../vault/watcher.js';
import { plural } from '../plural.js';
import type { DaemonEvents } from './events.js';
import { watchApproved } from './approved-watch.js';
import { AuthorWaits } from './author-waits.js';
import { DashboardFigures } from './dashboard-figures.js';
import { drainQueue, stoppedCode } from './drain.js';
import { IdleCheck, isIdle, startableTasks } from './idle-check.js';
import { TaskIntake } from './intake.js';
import { DaemonNotifications } from './notifications.js';
import { readRecent } from './recent.js';
import { RunningSessions } from './renames.js';
import { ReviewDesk } from './review-desk.js';
import { startReviewSweep } from './review-sweep.js';
import { runJob } from './run-job.js';
import type { DaemonParts } from './parts.js';
import { Scheduler } from './scheduler.js';
import { Settler } from './settler.js';
import {
  daemonEvents,
  daemonReleasers,
  lockVault,
  makeVaultFolders,
  openQueue,
  queueAddressOf,
  tidyVault,
} from './startup.js';
import type { FinishedEntry, Lifecycle } from './status.js';
import type { DaemonOptions, RunningDaemon } from './surface.js';
import { StatusPublisher } from './status-publisher.js';
import type { StatusTracker } from './status-tracker.js';
import type { TaskQueue } from './task-queue.js';
import { startReadingWorkers } from './worker-reading.js';

/** Runs the host follows at once when workers run them: the workers' own concurrency is the bound. */
const QUEUE_DISPATCH_LIMIT = 1_000;

/**
 * `wiggum start`: watch the vault and run every task that appears in Approved/. Each part that is
 * started (vault lock, status writers, queue, watcher) adds its release; a drain, or a failure
 * while starting, releases them in reverse: the watcher stops first, the lock goes last.
 */
export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const config = await loadConfig(options.config);
  const layout = vaultLayout(options.vault, config);
  const logger = options.createLogger(config);
  await makeVaultFolders(layout);
  const events = daemonEvents(logger);
  // The parts whose release threw: the daemon still stops, but exits non-zero (a failed shutdown).
  const releaseFailures: string[] = [];
  const releasers = daemonReleasers(events, logger, releaseFailures);
  try {
    const address = queueAddressOf(options.queueUrl, config);
    await lockVault(layout, logger, releasers);
    await tidyVault(layout, config, logger, options.clock);
    // Read before this daemon writes its own status.json: the tasks the last one saw finish.
    const recent = await readRecent(layout.statusFile);
    const queueHost = await openQueue(address, config, layout, logger, releasers);
    const daemon = new Daemon(options, config, layout, logger, events, releasers, releaseFailures, recent, queueHost);
    await daemon.start();
    return daemon;
  } catch (error) {
    await releasers.releaseAll();
    throw error;
  }
}

/**
 * The composition root: builds the daemon's parts (`DaemonParts`, parts.ts) and hands them to its
 * services. Its own work is the lifecycle (start, drain, reload); what follows a run is the
 * `Settler`'s, taking a file into the queue the `TaskIntake`'s, and each timer a service's, whose
 * release a drain calls first.
 */
class Daemon implements RunningDaemon, DaemonParts {
  readonly stopped: Promise<number>;
  private resolveStopped!: (code: number) => void;
  private readonly startedAtMs: number;
  readonly clock: Clock;
  readonly random: () => number;
  readonly env: NodeJS.ProcessEnv;
  readonly runHost: RunHost;
  readonly engine: TaskEngine | undefined;
  readonly killAgents = new AbortController();
  private readonly status: StatusPublisher;
  readonly tracker: StatusTracker;
  readonly queue: TaskQueue;
  readonly watcher: VaultWatcher;
  readonly intake: TaskIntake;
  private readonly settler: Settler;
  readonly authorWaits: AuthorWaits;
  readonly sessions = new RunningSessions();
  readonly reviews: ReviewDesk;
  readonly notifications: DaemonNotifications;
  readonly figures: DashboardFigures;
  readonly idle: IdleCheck | null;
  draining = false;
  /** Released at once when a drain begins: every timer the daemon set (sweeps, readings, idle checks, retries later). */
  private readonly timers: Release[] = [];

  constructor(
    private readonly options: DaemonOptions,
    public config: WiggumConfig,
    readonly layout: VaultLayout,
    readonly logger: Logger,
    readonly events: TypedEvents<DaemonEvents>,
    private readonly releasers: Releasers,
    private readonly releaseFailures: readonly string[],
    recent: readonly FinishedEntry[],
    private readonly queueHost: QueueHost | null,
  ) {
    ({ clock: this.clock, random: this.random, env: this.env } = options);
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
    this.startedAtMs = this.clock.now();
    this.runHost = vaultRunHost(layout);
    this.engine = queueHost?.engine;
    this.authorWaits = new AuthorWaits(layout, logger);
    this.reviews = new ReviewDesk(layout, logger);
    this.status = new StatusPublisher(layout, config.folders, config, this.clock, logger);
    this.tracker = this.status.tracker;
    this.tracker.restoreRecent(recent);
    releasers.add('status.json and Dashboard.md', () => this.status.flush());
    const { dashboardDebounceMs } = config.daemon;
    const defaultHarness = (): string | null => this.config.harness.defaultName;
    this.figures = new DashboardFigures(layout, defaultHarness, dashboardDebounceMs, this.clock, logger, () =>
      this.changed(),
    );
    this.status.statsSource = () => this.figures.headline;
    // Released before the Dashboard's last write: a pending refresh is done, so the last page has the last figures.
    releasers.add('stats', () => this.figures.release());
    this.notifications = this.openNotifications();
    // Released after the queue (its tasks' endings are told) and before the status is last written.
    releasers.add('notifications', () => this.notifications.stopping(this.releaseFailures));
    releasers.add('lifecycle', () => this.setLifecycle('stopped'));
    this.queue = this.openQueue();
    releasers.add('task queue', () =>
      drainQueue(this.queue, this.config.daemon.drainGraceMs, this.killAgents, this.clock, logger),
    );
    this.intake = new TaskIntake(this);
    this.watcher = watchApproved(this, queueHost === null ? undefined : (on) => queueHost?.hold(on));
    releasers.add('file watcher', () => this.watcher.close());
    this.idle = options.exitWhenIdle === true ? this.idleCheck() : null;
    this.settler = new Settler(this);
    this.timers.push(() => this.settler.release());
  }

  async start(): Promise<void> {
    // First, before any timer of the daemon's own starts: a failure here (a port in use) then
    // leaves nothing running once the start's release has run.
    const beside = await this.options.beside?.({
      config: this.config,
      layout: this.layout,
      events: this.events,
      clock: this.options.clock,
      logger: this.logger,
      startedAtMs: this.startedAtMs,
      status: () => this.tracker.snapshot(),
    });
    if (beside !== undefined && beside !== null) this.releasers.add('http api', () => beside.release());
    // How many wait in Review/ is known before any task starts (review.max_pending); Done/, which
    // may hold thousands of files to look at once, is swept in the background.
    await this.reviews.countPending();
    this.tracker.sandbox = await announceSandbox(this.config, this.env, this.logger);
    this.timers.push(startReviewSweep(this));
    this.figures.refresh();
    if (this.queueHost !== null)
      this.timers.push(startReadingWorkers(this.queueHost, this.tracker, this.clock, () => this.changed()));
    await this.watcher.ready;
    this.setLifecycle('running');
    this.logger.info(
      { event: 'daemon.started', vault: this.layout.root, concurrency: this.config.daemon.concurrency },
      `watching ${this.layout.approved}`,
    );
    await this.notifications.started();
    this.idle?.soon();
  }

  private openNotifications(): DaemonNotifications {
    const { config, layout, clock, random, logger, env } = this;
    const notifications = new DaemonNotifications(config, layout, clock, random, logger, env, () => this.changed());
    if (notifications.configured) this.tracker.notifierSource = () => notifications.snapshot();
    return notifications;
  }

  /** The task queue: in process (p-queue) by default; with workers, they bound how many run at once. */
  private openQueue(): TaskQueue {
    const createQueue =
      this.options.createQueue ??
      ((concurrency, run, settled, queueOptions) => new Scheduler(concurrency, run, settled, queueOptions));
    const local = this.queueHost === null;
    // With workers, the host admits one task per repository, so that two tasks never work on one
    // workdir or branch at a time across all workers.
    return createQueue(
      local ? this.config.daemon.concurrency : QUEUE_DISPATCH_LIMIT,
      async (job, signal) => this.settler.ended(job, await runJob(job, signal, this)),
      (job, error) => this.settler.settled(job, error),
      { maxPerRepo: local ? this.config.git.maxParallelPerRepo : 1 },
    );
  }

  /** `--exit-when-idle`: drains once nothing runs or waits and nothing in Approved/ can start. */
  private idleCheck(): IdleCheck {
    const idle = new IdleCheck(
      this.clock,
      () =>
        isIdle(
          this.queue,
          startableTasks(this.watcher.snapshot(), (name) => this.authorWaits.has(name)),
        ),
      () => this.drain('nothing left to do (--exit-when-idle)'),
    );
    this.timers.push(() => idle.release());
    return idle;
  }

  private setLifecycle(state: Lifecycle): void {
    this.tracker.lifecycle = state;
    this.changed();
    this.events.emit('lifecycle', { state });
  }

  changed(): void {
    this.status.changed();
  }

  drain(why: string): void {
    if (this.draining) return;
    this.draining = true;
    for (const release of this.timers) void release();
    this.setLifecycle('draining');
    const running = this.queue.running();
    this.logger.info(
      { event: 'daemon.draining', running: running.length },
      `draining (${why}): stopping ${plural(running.length, 'running task')} and checkpointing them`,
    );
    void this.releasers.releaseAll().then(() => this.resolveStopped(stoppedCode(this.releaseFailures, this.logger)));
  }

  killAgentsNow(): void {
    this.logger.warn(
      { event: 'daemon.forced-exit' },
      'exiting at once: the agents still running are killed; their tasks resume from their last checkpoint at the next start',
    );
    // The listeners signal synchronously, so SIGKILL reaches every agent's group before the caller exits.
    this.killAgents.abort();
  }

  crashed(error: unknown): void {
    this.notifications.crashed(error);
  }

  async reload(): Promise<void> {
    const checked = await checkConfig(this.options.config);
    if (!checked.ok) {
      this.logger.error(
        { event: 'config.reload-refused', problems: checked.problems.map(formatProblem) },
        'SIGHUP: the new configuration is invalid; keeping the old one',
      );
      return;
    }
    this.config = checked.config;
    if (this.queueHost === null) this.queue.concurrency = checked.config.daemon.concurrency;
    this.tracker.concurrency = checked.config.daemon.concurrency;
    this.logger.level = checked.config.log.level;
    this.logger.info(
      { event: 'config.reloaded', sources: checked.config.sources },
      'SIGHUP: configuration reloaded; running tasks keep the one they started with',
    );
  }
}
