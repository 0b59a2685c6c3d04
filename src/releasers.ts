/** Undoes what a start did: closes, flushes, unlocks. May be async; should not throw, but may. */
export type Release = () => void | Promise<void>;

/**
 * The one lifecycle shape: everything that starts something hands back its `release()`, added here
 * in start order; `releaseAll()` runs them in reverse, one at a time, each to the end even if an
 * earlier one failed (a failure is reported, never thrown), and only once. A daemon that started
 * a lock, then writers, then a queue, then a watcher stops the watcher first and unlocks last.
 */
export class Releasers {
  private readonly stack: { name: string; release: Release }[] = [];
  private releasing: Promise<void> | null = null;

  constructor(
    private readonly onReleased: (name: string) => void = () => undefined,
    private readonly onError: (error: unknown, name: string) => void = () => undefined,
  ) {}

  add(name: string, release: Release): void {
    if (this.releasing !== null) throw new Error(`cannot add "${name}": already releasing`);
    this.stack.push({ name, release });
  }

  releaseAll(): Promise<void> {
    this.releasing ??= this.run();
    return this.releasing;
  }

  private async run(): Promise<void> {
    for (const { name, release } of this.stack.reverse()) {
      try {
        await release();
      } catch (error) {
        this.onError(error, name);
      }
      this.onReleased(name);
    }
  }
}
