import { existsSync } from 'node:fs';
import type { Clock } from '../time/clock.js';

/** How often a held loop looks whether the vault's STOP file is gone. */
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
 * Holds while `stopFile` (the vault's STOP) exists, or until `signal` aborts. `onHold` is called
 * once when it starts holding; returns whether it held.
 */
export async function holdWhileExists(
  stopFile: string,
  clock: Clock,
  signal: AbortSignal,
  onHold: () => void,
): Promise<boolean> {
  if (!existsSync(stopFile)) return false;
  onHold();
  while (!signal.aborted && existsSync(stopFile)) {
    await clock.sleep(HOLD_POLL_MS, signal).catch(() => undefined);
  }
  return true;
}
