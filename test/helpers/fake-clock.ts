import type { Clock } from '../../src/time/clock.js';

/** A clock whose sleeps return at once and only move virtual time; it records what was asked. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  private offset = 0;

  now(): number {
    return Date.now() + this.offset;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new Error('aborted'));
    this.sleeps.push(ms);
    this.offset += ms;
    return Promise.resolve();
  }
}
