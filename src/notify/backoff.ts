import type { NotifierDefinition } from '../config/notifier.js';

/** At most this share of a delay is taken off at random, so that notifiers failing together do not retry in step. */
export const DELIVERY_JITTER = 0.25;

/**
 * How long a notifier waits after its `failures`-th failure in a row before it tries again:
 * `base_delay` doubled per failure, capped at `max_delay`, less up to a quarter at random.
 */
export function deliveryDelayMs(failures: number, retry: NotifierDefinition['retry'], random: () => number): number {
  const exponent = Math.max(0, failures - 1);
  const raw = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** Math.min(exponent, 40));
  return Math.max(0, Math.round(raw * (1 - DELIVERY_JITTER * random())));
}
