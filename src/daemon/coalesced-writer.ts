/**
 * Runs `write` at most once per `delayMs` however often `schedule()` is called, never two at
 * once, and always once more after the last call: a burst of 200 task changes costs a handful of
 * Dashboard.md writes, and the last state is always the one on disk.
 */
export class CoalescedWriter {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly delayMs: number,
    private readonly write: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  schedule(): void {
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.timer ??= setTimeout(() => void this.run(), this.delayMs);
  }

  /** Writes now if anything is pending (at shutdown), and waits for it. */
  async flush(): Promise<void> {
    await this.running;
    const pending = this.timer !== null || this.again;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (pending) await this.run();
  }

  private async run(): Promise<void> {
    this.timer = null;
    this.again = false;
    this.running = this.write().catch(this.onError);
    await this.running;
    this.running = null;
    if (this.again) this.schedule();
  }
}
