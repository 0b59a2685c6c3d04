import type { Clock } from '../time/clock.js';

/** How often a held loop looks whether its hold is over. */
const HOLD_POLL_MS = 500;

/**
 * Sleeps `ms` or until `signal` aborts; returns the time waited, between 0 and `ms`: the wall clock
 * may jump (NTP, a suspended machine), and a jump must neither give time back to the total timeout
 * nor use it up.
 */
export async function sleepCounted(clock: Clock, ms: number, signal: AbortSignal): Promise<number> {
  const from = clock.now();
  await clock.sleep(ms, signal).catch(() => undefined);
  return Math.min(ms, Math.max(0, clock.now() - from));
}

/**
 * Holds while `held()` says so (the host's hold: the vault's STOP, a queue's hold), or until
 * `signal` aborts. `onHold` is called once when it starts holding; returns whether it held.
 */
export async function holdWhile(
  held: () => boolean,
  clock: Clock,
  signal: AbortSignal,
  onHold: () => void,
): Promise<boolean> {
  if (!held()) return false;
  onHold();
  while (!signal.aborted && held()) {
    await clock.sleep(HOLD_POLL_MS, signal).catch(() => undefined);
  }
  return true;
}
