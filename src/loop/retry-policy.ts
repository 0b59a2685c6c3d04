import type { RetryPolicyConfig } from '../config/config.js';
import type { ErrorCode } from '../errors.js';

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

/**
 * The longest gap between two probes of a harness in an outage or at a usage limit with no reset
 * time. Larger than max_delay because an outage or a limit may last hours and every probe is a
 * run of the agent; small enough that a task resumes within minutes of the service answering.
 */
export const PROBE_MAX_DELAY_MS = 5 * 60_000;

/** The delay before probe `attempt` (1-based): the retry backoff, capped at PROBE_MAX_DELAY_MS instead of max_delay. */
export function probeDelayMs(attempt: number, policy: RetryPolicyConfig, random: () => number): number {
  return retryDelayMs(attempt, { ...policy, maxDelayMs: Math.max(policy.maxDelayMs, PROBE_MAX_DELAY_MS) }, random);
}

/**
 * The transient failures that say the agent's service (or the way to it) is failing, not this
 * task: when they outlast the retries, or hit several tasks at once, the harness is in an outage.
 * A run that timed out or went quiet is this task's own trouble and is not among them.
 */
const OUTAGE_CODES: ReadonlySet<ErrorCode> = new Set([
  'E_HARNESS_NETWORK',
  'E_HARNESS_OVERLOADED',
  'E_HARNESS_RATE_LIMIT',
  'E_HARNESS_TEMPFAIL',
  'E_HARNESS_RETRIABLE',
]);

export function isOutageCode(code: ErrorCode): boolean {
  return OUTAGE_CODES.has(code);
}
