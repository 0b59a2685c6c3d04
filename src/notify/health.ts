/** A notifier's deliveries, as status and the Dashboard show them. */
export interface NotifierHealth {
  /** Failures in a row (0 after a success). */
  failures: number;
  lastError: string | null;
  lastErrorAtMs: number | null;
  lastOkAtMs: number | null;
}

export const FRESH_HEALTH: NotifierHealth = { failures: 0, lastError: null, lastErrorAtMs: null, lastOkAtMs: null };

/** Failures in a row from which a notifier is said to be failing (one failure is a hiccup, retried). */
export const FAILING_AFTER = 3;

export type HealthChange = 'failing' | 'recovered' | null;

/**
 * The health after one attempt, and what changed: `failing` once when the failures in a row reach
 * FAILING_AFTER, `recovered` once when a delivery succeeds after that. The log says each once.
 */
export function afterAttempt(
  before: NotifierHealth,
  result: { ok: true } | { ok: false; error: string },
  nowMs: number,
): { health: NotifierHealth; change: HealthChange } {
  if (result.ok)
    return {
      health: { ...before, failures: 0, lastOkAtMs: nowMs },
      change: before.failures >= FAILING_AFTER ? 'recovered' : null,
    };
  const failures = before.failures + 1;
  return {
    health: { ...before, failures, lastError: result.error, lastErrorAtMs: nowMs },
    change: failures === FAILING_AFTER ? 'failing' : null,
  };
}

export function isFailing(health: NotifierHealth): boolean {
  return health.failures >= FAILING_AFTER;
}
