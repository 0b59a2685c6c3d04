/**
 * How long one harness run may take, and which limit sets it. Three limits bound a run: the
 * per-iteration timeout, what is left of the task's total time (`timeout.total`, counted across
 * runs and restarts), and what is left of its agent-time budget (`max_duration`). The run is
 * stopped at the nearest; which one it was decides what follows: a per-iteration timeout is
 * transient (retried), the other two end the task.
 */
export type DeadlineCause = 'per-iteration' | 'total' | 'budget';

export interface DeadlineInput {
  /** `timeout.per_step`; 0 = none. */
  perIterationMs: number;
  /** `timeout.total`; 0 = none. */
  totalMs: number;
  /** Time the task has already used towards `timeout.total`. */
  activeMs: number;
  /** `max_duration`; 0 = none. */
  maxDurationMs: number;
  /** Agent time the task has already used towards `max_duration`. */
  agentMs: number;
}

export interface IterationDeadline {
  /** The run's limit; 0 = none. */
  timeoutMs: number;
  /** The limit that sets it; null when there is none. */
  cause: DeadlineCause | null;
}

/**
 * The nearest limit. A run always gets at least 1 ms (a limit already used up stops it at once
 * rather than meaning "no limit"). On a tie the limit that ends the task wins: once it is reached
 * the task cannot go on, so calling it a per-iteration timeout would only retry into the same wall.
 */
export function iterationDeadline(input: DeadlineInput): IterationDeadline {
  const candidates: { ms: number; cause: DeadlineCause }[] = [];
  if (input.totalMs > 0) candidates.push({ ms: Math.max(1, input.totalMs - input.activeMs), cause: 'total' });
  if (input.maxDurationMs > 0)
    candidates.push({ ms: Math.max(1, input.maxDurationMs - input.agentMs), cause: 'budget' });
  if (input.perIterationMs > 0) candidates.push({ ms: input.perIterationMs, cause: 'per-iteration' });
  let nearest: { ms: number; cause: DeadlineCause } | null = null;
  for (const candidate of candidates) if (nearest === null || candidate.ms < nearest.ms) nearest = candidate;
  return nearest === null ? { timeoutMs: 0, cause: null } : { timeoutMs: nearest.ms, cause: nearest.cause };
}
