import type { Clock } from '../../src/time/clock.js';

/**
 * A clock whose time moves only when something sleeps on it: sleeps return at once, advance the
 * virtual time and are recorded. Real time passing never shows, so what a test reads is exact.
 */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  private time = Date.now();

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new Error('aborted'));
    this.sleeps.push(ms);
    this.time += ms;
    return Promise.resolve();
  }
}
