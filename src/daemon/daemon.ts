import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { WiggumConfig } from '../config/config.js';
import { checkConfig, loadConfig } from '../config/load.js';
import type { ConfigSources } from '../config/sources.js';
import { TypedEvents } from '../typed-events.js';
import { Releasers } from '../releasers.js';
import type { Logger } from '../log/logger.js';
import type { TaskRunResult } from '../loop/events.js';
import { finishCutMoves } from '../vault/cut-moves.js';
import type { RunHost } from '../loop/run-host.js';
import { runTask } from '../loop/run-task.js';
import { formatProblem } from '../problem.js';
import { sweepStaleTemps } from '../store/stale-temps.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
import { vaultLayout } from '../vault/layout.js';
import { vaultRunHost } from '../vault/run-host.js';
import { stemOf } from '../vault/names.js';
import { watchVault } from '../vault/watcher.js';
import type { VaultWatcher } from '../vault/watcher.js';
import type { DaemonEvents } from './events.js';
import { elapsed } from './dashboard.js';
import { jobFor } from './job.js';
import { reclaimOrphanWorktrees } from './orphan-worktrees.js';
import { applyActions } from './apply-actions.js';
import type { ActionTarget } from './apply-actions.js';
import { acquireVaultLock } from './lock.js';
import { endedPolicy, settlePolicy } from './settle-policy.js';
import type { SaidOnce, SettleAction } from './settle-policy.js';
import { Scheduler } from './scheduler.js';
import { parseQueueUrl } from '../queue/address.js';
import { HEARTBEAT_MS } from '../queue/names.js';
import { workerStatuses } from './worker-status.js';
import type { QueueHost } from '../queue/queue-host.js';
import { DaemonNotifications } from './notifications.js';
import type { DaemonStatus, FinishedEntry, Lifecycle } from './status.js';
import type { StatusTracker } from './status-tracker.js';
import { AuthorWaits } from './author-waits.js';
import { RunningSessions } from './renames.js';
import { readRecent } from './recent.js';
import { CoalescedWriter } from './coalesced-writer.js';
import { StatusPublisher } from './status-publisher.js';
import { StatsKeeper } from './stats-keeper.js';
import { ReviewDesk, reviewHoldText, reviewHolds } from './review-desk.js';
import type { Job, TaskQueue, TaskQueueFactory } from './task-queue.js';
import { plural } from '../plural.js';

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

const IDLE_CHECK_MS = 500;
/** Runs the host follows at once when workers run them: the workers' own concurrency is the bound. */
const QUEUE_DISPATCH_LIMIT = 1_000;
/**
 * How often Review/ and Done/ are read for a person's approvals (at most; rescan_interval if
 * shorter): a readdir of each, and a read only of names new to Done/, so it is cheap.
 */
const REVIEW_SWEEP_MS = 2_000;
/**
 * After the drain grace ran out and the agents were killed, how long their loops get to record the
 * iteration and checkpoint before the daemon exits anyway: a write or two, not a second grace.
 */
const DRAIN_KILL_MARGIN_MS = 1_500;

/**
 * `wiggum start`: watch the vault and run every task that appears in Approved/. Each part that is
 * started (vault lock, status writers, queue, watcher) adds its release; a drain, or a failure
 * while starting, releases them in reverse: the watcher stops first, the lock goes last.
 */
export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const config = await loadConfig(options.config);
  const layout = vaultLayout(options.vault, config);
  const logger = options.createLogger(config);
  await Promise.all(
    [layout.approved, layout.done, layout.rejected, layout.state, layout.blocked].map((dir) =>
      mkdir(dir, { recursive: true }),
    ),
  );
  await mkdir(layout.review, { recursive: true });
  const events = new TypedEvents<DaemonEvents>((error, event) =>
    logger.error(
      { event: 'daemon.listener-failed', err: error, daemonEvent: event },
      'a daemon event listener threw; the daemon goes on',
    ),
  );
  // The parts whose release threw: the daemon still stops, but exits non-zero (a failed shutdown).
  const releaseFailures: string[] = [];
  const releasers = new Releasers(
    (part) => events.emit('released', { part }),
    (error, part) => {
      releaseFailures.push(part);
      logger.error(
        { event: 'daemon.release-failed', err: error, part },
        `releasing ${part} failed; shutting down the rest`,
      );
    },
  );
  try {
    // Checked before anything is started: a mistyped URL is said at once, not at the first task.
    const queueUrl = options.queueUrl ?? config.queue.url;
    const address = queueUrl === null || queueUrl === '' ? null : parseQueueUrl(queueUrl);
    const lock = await acquireVaultLock(layout.lockFile);
    releasers.add('vault lock', () => lock.release());
    if (lock.tookOverFrom !== null)
      logger.warn(
        { event: 'vault-lock.taken-over', stale: lock.tookOverFrom },
        `took over a stale lock left by pid ${lock.tookOverFrom.pid}, which is no longer running`,
      );
    // Under the lock: no other wiggum writes into these folders now.
    for (const dir of [layout.approved, layout.done, layout.rejected]) {
      const removed = sweepStaleTemps(dir);
      if (removed.length > 0)
        logger.info(
          { event: 'vault.temp-files-removed', dir, removed },
          `removed ${plural(removed.length, 'temp file')} left by an interrupted write`,
        );
    }
    await finishCutMoves({ layout, logger, clock: options.clock }).catch((error: unknown) =>
      logger.error(
        { event: 'task.move-unfinished', err: error },
        'could not finish a move to Done/ or Rejected/ that a crash cut short; the file stays in Approved/ beside its twin',
      ),
    );
    // Before any task runs, so that a task never meets its worktree half closed.
    await reclaimOrphanWorktrees(layout, config, logger);
    // Read before this daemon writes its own status.json: the tasks the last one saw finish.
    const recent = await readRecent(layout.statusFile);
    // Loaded only with a queue: BullMQ and its Redis client are not the in-process daemon's to pay for.
    const queueHost =
      address === null ? null : (await import('../queue/queue-host.js')).openQueueHost(address, config, logger);
    if (queueHost !== null) {
      releasers.add('queue connection', () => queueHost.close());
      queueHost.hold(existsSync(layout.stopFile));
      logger.info(
        { event: 'queue.opened', queue: queueHost.address.shown },
        `task runs go to workers through ${queueHost.address.shown} (wiggum worker --queue ${queueHost.address.shown})`,
      );
    }
    const daemon = new Daemon(options, config, layout, logger, events, releasers, releaseFailures, recent, queueHost);
    await daemon.start();
    return daemon;
  } catch (error) {
    await releasers.releaseAll();
    throw error;
  }
}

class Daemon implements RunningDaemon {
  readonly stopped: Promise<number>;
  private resolveStopped!: (code: number) => void;
  private readonly tracker: StatusTracker;
  private readonly queue: TaskQueue;
  private readonly status: StatusPublisher;
  private readonly watcher: VaultWatcher;
  /** Files whose id is already running under another file name: started when that one ends. */
  private readonly blockedById = new Map<string, Job[]>();
  /** The vault as every run's host: one pause board, so a usage limit one task's agent hit holds every task on that account. */
  private readonly runHost: RunHost;
  /** Per task file, what the log said once about it (running in another process, unreadable) until it runs here. */
  private readonly said = new Map<string, Set<SaidOnce>>();
  /** Files in Approved/ that wait for their author (empty, no harness named). */
  private readonly authorWaits: AuthorWaits;
  /** The session of each running task, to know its file again when its author renames it. */
  private readonly sessions = new RunningSessions();
  private draining = false;
  /** Aborted when the drain grace runs out (or on a second signal): every running agent is killed. */
  private readonly killAgents = new AbortController();
  /** Aborted by the drain: every timer the daemon set (a retry later, the idle check) is cancelled. */
  private readonly drained = new AbortController();
  private idleCheckPending = false;
  /** Review/: how many wait there, the tasks held for `review.max_pending`, approvals by hand. */
  private readonly reviews: ReviewDesk;
  /** Events to the notifiers (`notify:`), kept in the outbox and sent in the background. */
  private readonly notifications: DaemonNotifications;
  /** The Dashboard's headline figures, kept up to date as tasks end (read once at start). */
  private readonly stats: StatsKeeper;
  private readonly statsRefresh: CoalescedWriter;
  /** Ended task files to read again at the next refresh of the figures. */
  private readonly statsChanged = new Set<string>();

  constructor(
    private readonly options: DaemonOptions,
    private config: WiggumConfig,
    private readonly layout: VaultLayout,
    private readonly logger: Logger,
    readonly events: TypedEvents<DaemonEvents>,
    private readonly releasers: Releasers,
    private readonly releaseFailures: readonly string[],
    recent: readonly FinishedEntry[] = [],
    private readonly queueHost: QueueHost | null = null,
  ) {
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
    this.startedAtMs = options.clock.now();
    this.runHost = vaultRunHost(layout);
    this.authorWaits = new AuthorWaits(layout, logger);
    this.reviews = new ReviewDesk(layout, logger);
    this.status = new StatusPublisher(layout, config.folders, config, options.clock, logger);
    this.tracker = this.status.tracker;
    this.tracker.restoreRecent(recent);
    releasers.add('status.json and Dashboard.md', () => this.status.flush());
    this.stats = new StatsKeeper(layout, () => this.config.harness.defaultName);
    this.status.statsSource = () => this.stats.headline;
    // A refresh adds up every ended task: one per dashboard_debounce (once per task ended, a burst
    // of 1,000 over 9,000 ended tasks was O(n²)).
    this.statsRefresh = new CoalescedWriter(
      config.daemon.dashboardDebounceMs,
      () => this.refreshStatsNow(),
      (error) =>
        this.logger.warn({ event: 'dashboard.write-failed', err: error }, 'could not read the figures of ended tasks'),
      options.clock,
    );
    // Released before the Dashboard's last write: a pending refresh is done, so the last page has the last figures.
    releasers.add('stats', () => this.statsRefresh.flush().then(() => this.stats.stop()));
    this.notifications = new DaemonNotifications(
      config,
      layout,
      options.clock,
      options.random,
      logger,
      options.env,
      () => this.changed(),
    );
    if (this.notifications.configured) this.tracker.notifierSource = () => this.notifications.snapshot();
    // Released after the queue (its tasks' endings are told) and before the status is last written.
    releasers.add('notifications', () => this.notifications.stopping(this.releaseFailures));
    releasers.add('lifecycle', () => this.setLifecycle('stopped'));

    const createQueue =
      options.createQueue ??
      ((concurrency, run, settled, queueOptions) => new Scheduler(concurrency, run, settled, queueOptions));
    // With workers, they bound how many run at once; the host admits one task per repository, so
    // that two tasks never work on one workdir or branch at a time across all workers.
    this.queue = createQueue(
      queueHost === null ? config.daemon.concurrency : QUEUE_DISPATCH_LIMIT,
      (job, signal) => this.run(job, signal),
      (job, error) => this.settled(job, error),
      { maxPerRepo: queueHost === null ? config.git.maxParallelPerRepo : 1 },
    );
    releasers.add('task queue', () => this.drainQueue());

    this.watcher = watchVault(
      layout,
      {
        settleMs: config.daemon.settleMs,
        composeQuietMs: config.daemon.composeQuietMs,
        defaultHarness: () => this.config.harness.defaultName,
        onReconcile: (reconciled) =>
          (this.tracker.waitingForAuthor = this.authorWaits.update(reconciled.known, reconciled.refused)),
        rescanIntervalMs: config.daemon.rescanIntervalMs,
        goneGraceMs: Math.max(1000, config.daemon.settleMs * 5),
        malformedGraceMs: Math.max(2000, config.daemon.settleMs * 10),
        clock: options.clock,
        logger,
      },
      (actions) => {
        events.emit('actions', { actions });
        void applyActions(actions, this.actionTarget()).catch((error: unknown) =>
          logger.error({ event: 'daemon.change-failed', err: error }, 'could not act on a change in the vault'),
        );
      },
    );
    releasers.add('file watcher', () => this.watcher.close());
  }

  private readonly startedAtMs: number;

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
    this.sweepReviewsEvery(0);
    this.refreshStats();
    if (this.queueHost !== null) this.readWorkersEvery(0);
    await this.watcher.ready;
    this.setLifecycle('running');
    this.logger.info(
      { event: 'daemon.started', vault: this.layout.root, concurrency: this.config.daemon.concurrency },
      `watching ${this.layout.approved}`,
    );
    await this.notifications.started();
    if (this.options.exitWhenIdle === true) this.checkIdleSoon();
  }

  private setLifecycle(state: Lifecycle): void {
    this.tracker.lifecycle = state;
    this.changed();
    this.events.emit('lifecycle', { state });
  }

  private changed(): void {
    this.status.changed();
  }

  private actionTarget(): ActionTarget {
    return {
      queue: this.queue,
      tracker: this.tracker,
      logger: this.logger,
      draining: () => this.draining,
      enqueue: (name, file) => this.enqueue(name, file),
      changed: () => this.changed(),
      ...(this.queueHost === null ? {} : { holdChanged: (on: boolean) => this.queueHost?.hold(on) }),
    };
  }

  private async enqueue(name: string, file: string): Promise<void> {
    const job = await jobFor(name, file, this.config, this.layout, this.options.clock.now());
    if (this.sessions.followRename(job, this.logger)) return;
    const maxPending = this.config.review.maxPending;
    if (maxPending !== null && reviewHolds(this.reviews.pendingCount, maxPending)) {
      this.reviews.hold({ name, file });
      const reason = reviewHoldText(this.reviews.pendingCount, maxPending);
      this.tracker.heldForReview(job.id, name, file, reason);
      this.logger.info({ event: 'review.holding', taskId: job.id, file }, `${name} ${reason}`);
      return;
    }
    if (this.queue.add(job)) {
      this.tracker.queued(job.id, job.name, job.file);
      this.logger.info({ event: 'task.queued', taskId: job.id, file }, `queued ${name}`);
      this.events.emit('queued', { taskId: job.id, name, file });
    } else {
      this.logger.warn(
        { event: 'task.waits-for-same-id', taskId: job.id, file },
        `another file with the id ${job.id} is already queued or running; ${name} waits for it`,
      );
      this.blockedById.set(job.id, [...(this.blockedById.get(job.id) ?? []), job]);
    }
  }

  private async run(job: Job, signal: AbortSignal): Promise<void> {
    const result = await runTask(
      {
        file: job.file,
        stream: null,
        signal,
        kill: this.killAgents.signal,
        onEvent: (event) => {
          if (event.type === 'started') this.sessions.track(event.session, job);
          this.tracker.event(event);
          this.notifications.loopEvent(event, job.name, job.file);
          this.events.emit('loop', event);
        },
      },
      {
        config: this.config,
        host: this.runHost,
        clock: this.options.clock,
        random: this.options.random,
        logger: this.logger,
        env: this.options.env,
        ...(this.queueHost === null ? {} : { engine: this.queueHost.engine }),
      },
    );
    this.ended(job, result);
  }

  private ended(job: Job, result: TaskRunResult): void {
    if (result.review === true) this.reviews.noteReview(result.file);
    // A task stopped by its flag: the tracker already shows it stopped, the loop's 'ended' event said so.
    for (const action of endedPolicy(result)) this.applySettle(job, action);
    this.notifications.ended(result, job.name);
    this.refreshStats([result.file]);
    this.events.emit('settled', { taskId: job.id, name: job.name, result, error: null });
  }

  /**
   * The Dashboard's figures brought up to date in the background, soon (`changed`: files to read
   * again). Only the Dashboard shows them: without one, nothing is read.
   */
  private refreshStats(changed: readonly string[] = []): void {
    if (this.layout.dashboard === null) return;
    for (const file of changed) this.statsChanged.add(file);
    this.statsRefresh.schedule();
  }

  private async refreshStatsNow(): Promise<void> {
    const changed = [...this.statsChanged];
    this.statsChanged.clear();
    if (await this.stats.refresh(changed)) this.changed();
  }

  private settled(job: Job, error: unknown): void {
    // Every run ends here (after `ended`, or with the error that ended it): its session is free.
    this.sessions.release(job);
    const actions = settlePolicy({
      name: job.name,
      error,
      fileExists: existsSync(job.file),
      said: this.said.get(job.name) ?? new Set(),
      failedRetryMs: this.config.daemon.failedRetryMs,
      nowMs: this.options.clock.now(),
    });
    for (const action of actions) this.applySettle(job, action);
    if (error !== null) this.events.emit('settled', { taskId: job.id, name: job.name, result: null, error });
    const blocked = this.blockedById.get(job.id);
    const next = blocked?.shift();
    if (blocked !== undefined && blocked.length === 0) this.blockedById.delete(job.id);
    if (next !== undefined && !this.draining) void this.enqueue(next.name, next.file);
    // Its file has just landed in Done/ or Rejected/: the tasks whose depends_on names it are
    // decided again now, not at the next periodic rescan.
    if (!this.draining) void this.watcher.rescan();
    this.changed();
    if (this.options.exitWhenIdle === true) this.checkIdleSoon();
  }

  private applySettle(job: Job, action: SettleAction): void {
    switch (action.kind) {
      case 'forget':
        return this.tracker.forget(job.id);
      case 'mark-finished':
        return this.watcher.markFinished(job.name);
      case 'mark-stopped':
        return this.watcher.markStopped(job.name);
      case 'rescan':
        void this.watcher.rescan();
        return;
      case 'retry-later':
        return this.retryLater(job, action.delayMs);
      case 'list-running-elsewhere':
        return this.tracker.runningElsewhere(job.id, job.name, job.file, action.pid);
      case 'list-failing':
        return this.tracker.failed(job.id, job.name, job.file, action.reason, action.retryAtMs);
      case 'log':
        return this.logger[action.level]({ event: action.event, taskId: job.id, ...action.fields }, action.message);
      case 'note-said':
        this.said.set(job.name, (this.said.get(job.name) ?? new Set<SaidOnce>()).add(action.what));
        return;
      case 'clear-said':
        this.said.delete(job.name);
        return;
    }
  }

  /**
   * Lets the watcher offer the task again after `delayMs` (on the injected clock, cancelled by a
   * drain); a task whose file has gone meanwhile is no longer listed.
   */
  private retryLater(job: Job, delayMs: number): void {
    this.options.clock.sleep(delayMs, this.drained.signal).then(
      () => {
        if (!existsSync(job.file)) this.tracker.forget(job.id);
        this.watcher.markFinished(job.name);
        void this.watcher.rescan();
      },
      () => undefined, // drained: nothing is offered again
    );
  }

  /**
   * Reads Review/ and Done/ (review-desk.ts), then starts the tasks held for `review.max_pending`
   * once fewer wait for review. A task held meanwhile moved or deleted is dropped.
   */
  private async sweepReviews(): Promise<void> {
    await this.reviews.sweep();
    // A person's moves (an approval, a retry) change the figures too.
    this.refreshStats();
    const maxPending = this.config.review.maxPending;
    if (this.reviews.heldCount === 0 || this.draining) return;
    if (maxPending !== null && reviewHolds(this.reviews.pendingCount, maxPending)) return;
    const held = this.reviews.release();
    this.logger.info(
      { event: 'review.released', tasks: held.map((task) => task.name) },
      `fewer tasks wait for review: starting ${plural(held.length, 'held task')}`,
    );
    for (const task of held) {
      if (existsSync(task.file)) await this.enqueue(task.name, task.file);
    }
  }

  /** Review/ and Done/ are not watched (moves there are a person's): they are looked at on this timer. */
  private sweepReviewsEvery(firstMs: number): void {
    const everyMs = Math.min(this.config.daemon.rescanIntervalMs, REVIEW_SWEEP_MS);
    this.options.clock.sleep(firstMs, this.drained.signal).then(
      async () => {
        await this.sweepReviews().catch((error: unknown) =>
          this.logger.warn({ event: 'task.approve-failed', err: error }, 'could not read Review/ or Done/'),
        );
        this.sweepReviewsEvery(everyMs);
      },
      () => undefined, // drained
    );
  }

  /** With workers: who is alive, and how busy, for status.json and the Dashboard (their heartbeat keys). */
  private readWorkersEvery(firstMs: number): void {
    const host = this.queueHost;
    if (host === null) return;
    this.options.clock.sleep(firstMs, this.drained.signal).then(
      async () => {
        const workers = await host.workers().catch(() => null);
        if (workers !== null) {
          this.tracker.setWorkers(workerStatuses(workers, this.options.clock.now(), HEARTBEAT_MS));
          // With workers, how many run at once is theirs to say: their concurrency, added up.
          this.tracker.concurrency = workers.reduce((sum, worker) => sum + worker.concurrency, 0);
          this.changed();
        }
        this.readWorkersEvery(HEARTBEAT_MS);
      },
      () => undefined, // drained
    );
  }

  private checkIdleSoon(): void {
    if (this.idleCheckPending || this.draining) return;
    this.idleCheckPending = true;
    this.options.clock.sleep(IDLE_CHECK_MS, this.drained.signal).then(
      () => {
        this.idleCheckPending = false;
        const snapshot = this.watcher.snapshot();
        const startable =
          snapshot === null
            ? 1
            : [...snapshot.tasks.keys()].filter(
                (name) => !snapshot.stopFlags.has(stemOf(name)) && !this.authorWaits.has(name),
              ).length;
        if (this.queue.running().length === 0 && this.queue.waiting().length === 0 && startable === 0)
          this.drain('nothing left to do (--exit-when-idle)');
        else this.checkIdleSoon();
      },
      () => undefined, // drained already
    );
  }

  drain(why: string): void {
    if (this.draining) return;
    this.draining = true;
    this.drained.abort();
    this.setLifecycle('draining');
    const running = this.queue.running();
    this.logger.info(
      { event: 'daemon.draining', running: running.length },
      `draining (${why}): stopping ${plural(running.length, 'running task')} and checkpointing them`,
    );
    void this.releasers.releaseAll().then(() => {
      if (this.releaseFailures.length === 0) {
        this.logger.info({ event: 'daemon.stopped' }, 'stopped');
        this.resolveStopped(0);
        return;
      }
      // A failed shutdown: 1, the CLI's EXIT.failed, so that systemd and scripts see it.
      this.logger.error(
        { event: 'daemon.stopped-failed', parts: this.releaseFailures },
        `stopped, but could not release ${this.releaseFailures.join(', ')}; exiting with code 1`,
      );
      this.resolveStopped(1);
    });
  }

  /**
   * Nothing new starts; every task is stopped and checkpointed as interrupted, within the drain
   * grace. Agents get SIGTERM and `harness.stop_grace`, but never past `daemon.drain_grace`: when it
   * runs out the ones still running are killed (SIGKILL), their loops record the iteration and
   * checkpoint, and the daemon goes on stopping, whatever is still running after a short margin.
   */
  private async drainQueue(): Promise<void> {
    this.queue.pause();
    this.queue.stopAll('interrupted');
    const graceMs = this.config.daemon.drainGraceMs;
    if (await this.idleWithin(graceMs)) return;
    const left = this.queue.running().map((job) => job.id);
    this.logger.warn(
      { event: 'daemon.drain-grace-over', graceMs, tasks: left },
      `the drain grace (${elapsed(graceMs)}) ran out: killing the agents still running (SIGKILL)`,
    );
    this.killAgents.abort();
    if (await this.idleWithin(DRAIN_KILL_MARGIN_MS)) return;
    this.logger.error(
      { event: 'daemon.drain-incomplete', graceMs, tasks: this.queue.running().map((job) => job.id) },
      'some tasks did not stop after their agents were killed; exiting anyway (they resume from their last checkpoint)',
    );
  }

  /** Whether the queue is idle within `ms` (on the injected clock). */
  private async idleWithin(ms: number): Promise<boolean> {
    const timeUp = new AbortController();
    const idle = await Promise.race([
      this.queue.idle().then(() => true),
      this.options.clock.sleep(ms, timeUp.signal).then(
        () => false,
        () => true, // unreachable: aborted only once the race is decided
      ),
    ]);
    timeUp.abort();
    return idle;
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
