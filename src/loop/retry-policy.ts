import type { RetryPolicyConfig } from '../config/config.js';

/**
 * The delay before retry `attempt` (1-based) of a transient failure: base·2^(attempt−1), capped at
 * the maximum, then spread by ±jitter so that tasks failing together do not retry together.
 * With the defaults: 1, 2, 4, 8, 16 s, each ±20 %. `random` returns [0, 1) and is injected.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicyConfig, random: () => number): number {
  const exponent = Math.max(0, attempt - 1);
  const base = Math.min(policy.baseDelayMs * 2 ** exponent, policy.maxDelayMs);
  const spread = 1 + policy.jitter * (2 * random() - 1);
  return Math.max(0, Math.round(base * spread));
}
