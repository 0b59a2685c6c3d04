import type { Clock } from '../time/clock.js';

/**
 * Runs `write` at most once per `delayMs` however often `schedule()` is called, never two at
 * once, and always once more after the last call: a burst of 200 task changes costs a handful of
 * Dashboard.md writes, and the last state is always the one on disk. The delay runs on the
 * injected clock, so a test moves it on instead of waiting it out.
 */
export class CoalescedWriter {
  /** Cancels the scheduled write's delay; null when none is scheduled. */
  private pending: AbortController | null = null;
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly delayMs: number,
    private readonly write: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly clock: Clock,
  ) {}

  schedule(): void {
    if (this.running !== null) {
      this.again = true;
      return;
    }
    if (this.pending !== null) return;
    const pending = new AbortController();
    this.pending = pending;
    this.clock.sleep(this.delayMs, pending.signal).then(
      // Only if this delay is still the scheduled one: a flush may have taken over in between.
      () => {
        if (this.pending === pending) void this.run();
      },
      () => undefined, // cancelled by a flush, which writes itself
    );
  }

  /** Writes now if anything is pending (at shutdown), and waits for it. */
  async flush(): Promise<void> {
    await this.running;
    const pending = this.pending !== null || this.again;
    this.pending?.abort();
    this.pending = null;
    if (pending) await this.run();
  }

  /** Drops what is scheduled, without writing it (a release that needs no last write). */
  cancel(): void {
    this.pending?.abort();
    this.pending = null;
    this.again = false;
  }

  private async run(): Promise<void> {
    this.pending = null;
    this.again = false;
    this.running = this.write().catch(this.onError);
    await this.running;
    this.running = null;
    if (this.again) this.schedule();
  }
}
