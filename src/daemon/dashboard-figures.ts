import type { Logger } from '../log/logger.js';
import type { Figures } from '../stats/figures.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
import { CoalescedWriter } from './coalesced-writer.js';
import { StatsKeeper } from './stats-keeper.js';

/**
 * The Dashboard's headline figures, kept up to date as tasks end (read once at start): the
 * `StatsKeeper` refreshed in the background at most once per `daemon.dashboard_debounce`. A
 * refresh adds up every ended task, so once per task ended would make a burst of 1,000 over 9,000
 * ended tasks O(n²). Only the Dashboard shows them: without one, nothing is read.
 */
export class DashboardFigures {
  private readonly keeper: StatsKeeper;
  private readonly refresher: CoalescedWriter;
  /** Ended task files to read again at the next refresh. */
  private readonly changedFiles = new Set<string>();

  constructor(
    private readonly layout: VaultLayout,
    defaultHarness: () => string | null,
    debounceMs: number,
    clock: Clock,
    logger: Logger,
    /** The figures changed: the Dashboard is written again. */
    private readonly onChanged: () => void,
  ) {
    this.keeper = new StatsKeeper(layout, defaultHarness);
    this.refresher = new CoalescedWriter(
      debounceMs,
      () => this.refreshNow(),
      (error) =>
        logger.warn({ event: 'dashboard.write-failed', err: error }, 'could not read the figures of ended tasks'),
      clock,
    );
  }

  /** Undefined until the first refresh ended. */
  get headline(): Figures | undefined {
    return this.keeper.headline;
  }

  /** Brings the figures up to date in the background, soon (`changed`: files to read again). */
  refresh(changed: readonly string[] = []): void {
    if (this.layout.dashboard === null) return;
    for (const file of changed) this.changedFiles.add(file);
    this.refresher.schedule();
  }

  /** Does a pending refresh, then stops: released before the Dashboard's last write, which then has the last figures. */
  async release(): Promise<void> {
    await this.refresher.flush();
    await this.keeper.stop();
  }

  private async refreshNow(): Promise<void> {
    const changed = [...this.changedFiles];
    this.changedFiles.clear();
    if (await this.keeper.refresh(changed)) this.onChanged();
  }
}
