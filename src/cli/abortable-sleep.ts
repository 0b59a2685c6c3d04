import { systemClock } from '../time/clock.js';
import type { Clock } from '../time/clock.js';

/**
 * Resolves after `ms` on `clock`, or at once when `signal` aborts (Ctrl-C ends a watch without
 * waiting out its tick): the clock's sleep, with the abort as a plain end rather than a rejection.
 */
export function abortableSleep(ms: number, signal: AbortSignal, clock: Clock = systemClock): Promise<void> {
  return clock.sleep(ms, signal).catch(() => undefined);
}
