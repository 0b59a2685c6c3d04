import type { Clock } from '../../src/time/clock.js';

interface Sleeper {
  atMs: number;
  resolve: () => void;
}

/**
 * A clock that moves only when the test says so: `advance(ms)` wakes, in time order, every sleep
 * that ends by then, letting each wake-up's promise callbacks run before the next one. Nothing
 * ever waits on real time.
 */
export class ManualClock implements Clock {
  private time = 1_700_000_000_000;
  private sleepers: Sleeper[] = [];
  private waiters: (() => void)[] = [];

  now(): number {
    return this.time;
  }

  /** As `Clock.sleep`: an abort rejects with the signal's reason, like `systemClock`. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((other) => other !== sleeper);
        if (signal !== undefined) reject(abortReason(signal));
      };
      const sleeper: Sleeper = {
        atMs: this.time + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      for (const wake of this.waiters.splice(0)) wake();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** How many sleeps are pending. */
  get pending(): number {
    return this.sleepers.length;
  }

  /**
   * Resolves once something sleeps on this clock (at once if something already does): for code
   * that reaches its first wait only after real I/O, which `advance` cannot know about.
   */
  sleeping(): Promise<void> {
    if (this.sleepers.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    for (;;) {
      await settle();
      const next = this.sleepers.filter((sleeper) => sleeper.atMs <= until).sort((a, b) => a.atMs - b.atMs)[0];
      if (next === undefined) break;
      this.sleepers = this.sleepers.filter((sleeper) => sleeper !== next);
      this.time = Math.max(this.time, next.atMs);
      next.resolve();
    }
    this.time = until;
    await settle();
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/** Lets pending promise callbacks and I/O callbacks of already-finished work run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}
