import type { WiggumConfig } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
import { CoalescedWriter } from './coalesced-writer.js';
import { renderDashboard } from './dashboard.js';
import { StatusTracker } from './status-tracker.js';
import { inspectOwnDaemon } from './view.js';
import type { Figures } from '../stats/figures.js';

const STATUS_WRITE_MS = 200;

/**
 * The daemon's picture of itself, kept in a StatusTracker and published, coalesced, to
 * `.wiggum/status.json` (for `wiggum status`) and Dashboard.md (for a person in Obsidian). The
 * daemon is the only writer of both.
 */
export class StatusPublisher {
  readonly tracker: StatusTracker;
  private readonly statusWriter: CoalescedWriter;
  private readonly dashboardWriter: CoalescedWriter;
  /** The headline figures for the Dashboard (stats-keeper.ts); undefined while not known yet. */
  statsSource: () => Figures | undefined = () => undefined;

  constructor(
    private readonly layout: VaultLayout,
    private readonly folders: WiggumConfig['folders'],
    config: WiggumConfig,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    const now = (): number => clock.now();
    this.tracker = new StatusTracker(
      { pid: process.pid, vault: layout.root, startedAtMs: now(), concurrency: config.daemon.concurrency },
      now,
      () => this.changed(),
    );
    this.statusWriter = new CoalescedWriter(
      STATUS_WRITE_MS,
      () => writeFileAtomic(layout.statusFile, `${JSON.stringify(this.tracker.snapshot())}\n`),
      (error) => logger.warn({ event: 'status.write-failed', err: error }, 'could not write status.json'),
      clock,
    );
    this.dashboardWriter = new CoalescedWriter(
      config.daemon.dashboardDebounceMs,
      () => this.writeDashboard(),
      (error) => logger.warn({ event: 'dashboard.write-failed', err: error }, 'could not write the dashboard'),
      clock,
    );
  }

  /** Something changed: both files are rewritten soon, once per burst. */
  changed(): void {
    this.statusWriter.schedule();
    if (this.layout.dashboard !== null) this.dashboardWriter.schedule();
  }

  /** Writes what is pending now (at shutdown). */
  async flush(): Promise<void> {
    await this.statusWriter.flush();
    await this.dashboardWriter.flush();
  }

  private async writeDashboard(): Promise<void> {
    if (this.layout.dashboard === null) return;
    // The same picture `wiggum status` and the API give, from the daemon's own knowledge and the folders.
    const view = await inspectOwnDaemon(this.layout, this.tracker.snapshot());
    const stats = this.statsSource();
    await writeFileAtomic(
      this.layout.dashboard,
      renderDashboard({ ...view, ...(stats === undefined ? {} : { stats }) }, this.folders, this.clock.now()),
    );
  }
}
