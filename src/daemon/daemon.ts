import { mkdir } from 'node:fs/promises';
import type { WiggumConfig } from '../config/config.js';
import { checkConfig, loadConfig } from '../config/load.js';
import type { ConfigSources } from '../config/sources.js';
import { isWiggumError } from '../errors.js';
import { formatProblem } from '../problem.js';
import type { Logger } from '../log/logger.js';
import type { TaskRunResult } from '../loop/events.js';
import { runTask } from '../loop/run-task.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
import { vaultLayout } from '../vault/layout.js';
import { stemOf } from '../vault/names.js';
import type { ReconcileAction } from '../vault/reconcile.js';
import { watchVault } from '../vault/watcher.js';
import { CoalescedWriter } from './coalesced-writer.js';
import { renderDashboard } from './dashboard.js';
import { jobFor } from './job.js';
import { acquireVaultLock } from './lock.js';
import type { OwnerLock } from '../lock/owner-lock.js';
import { Scheduler } from './scheduler.js';
import type { Job } from './scheduler.js';
import { StatusTracker } from './status.js';
import { folderCounts, viewFromStatus } from './view.js';

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
}

export interface RunningDaemon {
  /** Resolves with the exit code once the daemon has stopped. */
  stopped: Promise<number>;
  /** SIGTERM/SIGINT: stop starting work, stop every harness, checkpoint, exit 0. */
  drain(why: string): void;
  /** A second signal: exit at once; files stay consistent because every write is atomic. */
  forceExit(): never;
  /** SIGHUP: reload and check the configuration; a bad one is logged and the old one kept. */
  reload(): Promise<void>;
}

/** After an unexpected failure a task is tried again only after this long, not in a hot loop. */
const FAILED_TASK_RETRY_MS = 30_000;
/** A task another process (`wiggum run`) is running is looked at again this often, to take it once that ends. */
const BUSY_TASK_RETRY_MS = 5_000;
const STATUS_WRITE_MS = 200;
const IDLE_CHECK_MS = 500;

/** `wiggum start`: watch the vault and run every task that appears in Approved/. */
export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const config = await loadConfig(options.config);
  const layout = vaultLayout(options.vault, config);
  const logger = options.createLogger(config);
  await Promise.all([layout.approved, layout.done, layout.rejected, layout.state].map((dir) => mkdir(dir, { recursive: true })));
  const lock = await acquireVaultLock(layout.lockFile);
  if (lock.tookOverFrom !== null) logger.warn({ stale: lock.tookOverFrom }, `took over a stale lock left by pid ${lock.tookOverFrom.pid}, which is no longer running`);
  return new Daemon(options, config, layout, logger, lock).start();
}

class Daemon implements RunningDaemon {
  readonly stopped: Promise<number>;
  private resolveStopped!: (code: number) => void;
  private readonly tracker: StatusTracker;
  private readonly scheduler: Scheduler;
  private readonly statusWriter: CoalescedWriter;
  private readonly dashboardWriter: CoalescedWriter;
  private readonly watcher: ReturnType<typeof watchVault>;
  /** Files whose id is already running under another file name: started when that one ends. */
  private readonly blockedById = new Map<string, Job[]>();
  /** Tasks found running in another process, each said once in the log until it runs here. */
  private readonly busyElsewhere = new Set<string>();
  private draining = false;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly options: DaemonOptions,
    private config: WiggumConfig,
    private readonly layout: VaultLayout,
    private readonly logger: Logger,
    private readonly lock: OwnerLock,
  ) {
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
    const now = (): number => options.clock.now();
    this.tracker = new StatusTracker({ pid: process.pid, vault: layout.root, startedAtMs: now(), concurrency: config.daemon.concurrency }, now, () => this.changed());
    this.statusWriter = new CoalescedWriter(STATUS_WRITE_MS, () => writeFileAtomic(layout.statusFile, `${JSON.stringify(this.tracker.snapshot())}\n`), (error) => logger.warn({ err: error }, 'could not write status.json'));
    this.dashboardWriter = new CoalescedWriter(config.daemon.dashboardDebounceMs, () => this.writeDashboard(), (error) => logger.warn({ err: error }, 'could not write the dashboard'));
    this.scheduler = new Scheduler(config.daemon.concurrency, (job, signal) => this.run(job, signal), (job, error) => this.settled(job, error));
    this.watcher = watchVault(
      layout,
      {
        settleMs: config.daemon.settleMs,
        rescanIntervalMs: config.daemon.rescanIntervalMs,
        goneGraceMs: Math.max(1000, config.daemon.settleMs * 5),
        malformedGraceMs: Math.max(2000, config.daemon.settleMs * 10),
        clock: options.clock,
        logger,
      },
      (actions) => void this.apply(actions).catch((error: unknown) => logger.error({ err: error }, 'could not act on a change in the vault')),
    );
  }

  async start(): Promise<this> {
    await this.watcher.ready;
    this.tracker.lifecycle = 'running';
    this.changed();
    this.logger.info({ vault: this.layout.root, concurrency: this.config.daemon.concurrency }, `watching ${this.layout.approved}`);
    if (this.options.exitWhenIdle === true) this.checkIdleSoon();
    return this;
  }

  private changed(): void {
    this.statusWriter.schedule();
    if (this.layout.dashboard !== null) this.dashboardWriter.schedule();
  }

  private async writeDashboard(): Promise<void> {
    if (this.layout.dashboard === null) return;
    const view = viewFromStatus(this.tracker.snapshot(), await folderCounts(this.layout));
    await writeFileAtomic(this.layout.dashboard, renderDashboard(view, this.config.folders, this.options.clock.now()));
  }

  private async apply(actions: ReconcileAction[]): Promise<void> {
    for (const action of actions) {
      if (this.draining) return;
      switch (action.kind) {
        case 'start':
        case 'resume':
          await this.enqueue(action.name, action.path);
          break;
        case 'stop': {
          const job = this.scheduler.byName(action.name);
          if (job !== undefined) {
            this.logger.info({ taskId: job.id }, `stop flag for ${action.name}: stopping`);
            const wasRunning = this.scheduler.running().some((running) => running.id === job.id);
            this.scheduler.stop(job.id, 'stop-flag');
            if (!wasRunning) this.tracker.stopped(job.id, job.name, job.file);
          }
          break;
        }
        case 'gone': {
          const job = this.scheduler.byName(action.name);
          if (job !== undefined) {
            this.logger.warn({ taskId: job.id }, `${action.name} was moved or deleted: stopping it, its memory is kept`);
            this.scheduler.stop(job.id, 'task-gone');
            this.tracker.forget(job.id);
          }
          break;
        }
        case 'hold':
          this.tracker.held = action.on;
          if (action.on) this.scheduler.pause();
          else this.scheduler.resume();
          this.logger.info(action.on ? 'STOP exists: nothing new starts and running tasks hold before their next iteration' : 'STOP removed: resuming');
          this.changed();
          break;
      }
    }
  }

  private async enqueue(name: string, file: string): Promise<void> {
    const job = await jobFor(name, file, this.config, this.layout, this.options.clock.now());
    if (this.scheduler.add(job)) {
      this.tracker.queued(job.id, job.name, job.file);
      this.logger.info({ taskId: job.id, file }, `queued ${name}`);
    } else {
      this.logger.warn({ taskId: job.id, file }, `another file with the id ${job.id} is already queued or running; ${name} waits for it`);
      this.blockedById.set(job.id, [...(this.blockedById.get(job.id) ?? []), job]);
    }
  }

  private async run(job: Job, signal: AbortSignal): Promise<void> {
    const result = await runTask(
      {
        file: job.file,
        stream: null,
        signal,
        onEvent: (event) => this.tracker.event(event),
      },
      { config: this.config, layout: this.layout, clock: this.options.clock, random: this.options.random, logger: this.logger, env: this.options.env },
    );
    this.ended(job, result);
  }

  private ended(job: Job, result: TaskRunResult): void {
    if (result.status === 'stopped' && result.reason === 'stop-flag') {
      this.watcher.markStopped(job.name); // the tracker already shows it stopped: the loop's 'ended' event said so
    } else if (result.status !== 'interrupted') {
      this.watcher.markFinished(job.name);
    }
  }

  private settled(job: Job, error: unknown): void {
    if (isWiggumError(error, 'E_LOCKED')) {
      if (!this.busyElsewhere.has(job.name)) this.logger.warn({ taskId: job.id, owner: error.details.owner }, `${error.message}; it is taken here once that run ends`);
      this.busyElsewhere.add(job.name);
      this.tracker.forget(job.id);
      this.retryLater(job.name, BUSY_TASK_RETRY_MS);
    } else if (error !== null) {
      this.logger.error({ taskId: job.id, err: error }, `the loop of ${job.name} failed unexpectedly; it is tried again in ${FAILED_TASK_RETRY_MS / 1000} s`);
      this.tracker.forget(job.id);
      this.retryLater(job.name, FAILED_TASK_RETRY_MS);
    } else {
      this.busyElsewhere.delete(job.name);
    }
    const blocked = this.blockedById.get(job.id);
    const next = blocked?.shift();
    if (blocked !== undefined && blocked.length === 0) this.blockedById.delete(job.id);
    if (next !== undefined && !this.draining) void this.enqueue(next.name, next.file);
    this.changed();
    if (this.options.exitWhenIdle === true) this.checkIdleSoon();
  }

  /** Lets the watcher offer the task again after `delayMs`. */
  private retryLater(name: string, delayMs: number): void {
    setTimeout(() => {
      this.watcher.markFinished(name);
      void this.watcher.rescan();
    }, delayMs).unref();
  }

  private checkIdleSoon(): void {
    if (this.idleTimer !== null || this.draining) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      const snapshot = this.watcher.snapshot();
      const startable = snapshot === null ? 1 : [...snapshot.tasks.keys()].filter((name) => !snapshot.stopFlags.has(stemOf(name))).length;
      if (this.scheduler.running().length === 0 && this.scheduler.waiting().length === 0 && startable === 0) this.drain('nothing left to do (--exit-when-idle)');
      else this.checkIdleSoon();
    }, IDLE_CHECK_MS);
  }

  drain(why: string): void {
    if (this.draining) return;
    this.draining = true;
    this.tracker.lifecycle = 'draining';
    this.changed();
    const running = this.scheduler.running();
    this.logger.info({ running: running.length }, `draining (${why}): stopping ${running.length} running task(s) and checkpointing them`);
    void this.finishDrain();
  }

  private async finishDrain(): Promise<void> {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    await this.watcher.close().catch(() => undefined);
    this.scheduler.pause();
    this.scheduler.stopAll('interrupted');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      this.scheduler.idle().then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), this.config.daemon.drainGraceMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) this.logger.error({ graceMs: this.config.daemon.drainGraceMs }, 'some tasks did not stop within the drain grace; exiting anyway');
    this.tracker.lifecycle = 'stopped';
    this.changed();
    await this.statusWriter.flush();
    await this.dashboardWriter.flush();
    await this.lock.release();
    this.logger.info('stopped');
    this.resolveStopped(0);
  }

  forceExit(): never {
    this.logger.warn('exiting at once: tasks that were running resume from their last checkpoint at the next start');
    process.exit(3);
  }

  async reload(): Promise<void> {
    const checked = await checkConfig(this.options.config);
    if (!checked.ok) {
      this.logger.error({ problems: checked.problems.map(formatProblem) }, 'SIGHUP: the new configuration is invalid; keeping the old one');
      return;
    }
    this.config = checked.config;
    this.scheduler.concurrency = checked.config.daemon.concurrency;
    this.tracker.concurrency = checked.config.daemon.concurrency;
    this.logger.level = checked.config.log.level;
    this.logger.info({ sources: checked.config.sources }, 'SIGHUP: configuration reloaded; running tasks keep the one they started with');
  }
}
