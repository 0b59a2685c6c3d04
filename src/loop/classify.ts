import { WiggumError, isWiggumError } from '../errors.js';
import type { HarnessFailure } from '../harness/drivers/driver.js';
import type { ProcessResult } from '../harness/run-process.js';
import type { DeadlineCause } from './iteration-deadline.js';
import type { IterationOutcome, StopReason } from './outcome.js';
import type { Asking } from './question.js';

/** What one harness run came to, as read from its process, its output and the memory after it. */
export interface RunFacts {
  result: Pick<ProcessResult, 'exitCode' | 'signal' | 'timedOut' | 'stopped' | 'spawnError'>;
  /**
   * The run's failure: what the process itself shows (not started, timed out, killed), else what the
   * agent reported, else a retriable error in its output; null: none.
   */
  failure: HarnessFailure | null;
  /** The stop the run was aborted with, when the user's stop aborted it; null: it was not stopped. */
  stopped: StopReason | null;
  /** Which limit stopped a run that timed out (iteration-deadline.ts). */
  deadline: DeadlineCause | null;
  /** The sandbox limit the run reached (processes, file size), a message; null: none. */
  limitHit: string | null;
  /** prd.json no longer parses after the run: its error. */
  prdError: Error | null;
  completionFound: boolean;
  asking: Asking;
  progressed: boolean;
  iteration: number;
  totalTimeoutMs: number;
  maxDurationMs: number;
}

/**
 * What a run came to, decided on its facts alone (pure, table-tested): an outcome, or `claim` when
 * the agent claimed completion and the claim still has to be checked against the stories and the
 * verify check (`completionRefusal`, iteration.ts), which turns it into a `claimed` outcome.
 */
export function classify(
  facts: RunFacts,
): IterationOutcome | { kind: 'claim'; progressed: boolean; exitCode: number | null } {
  const { result, progressed } = facts;
  // A memory file over its limit was not read: the attempt failed, and it is retried (decide.ts).
  if (isWiggumError(facts.prdError, 'E_MEMORY_TOO_LARGE'))
    return { kind: 'transient', code: 'E_MEMORY_TOO_LARGE', message: facts.prdError.message };
  if (facts.prdError !== null)
    return { kind: 'hard', code: 'E_MEMORY_CORRUPT', message: facts.prdError.message, error: facts.prdError };
  if (result.timedOut && facts.deadline === 'total') return totalTimeout(facts.totalTimeoutMs, facts.iteration);
  if (result.timedOut && facts.deadline === 'budget')
    return {
      kind: 'hard',
      code: 'E_BUDGET',
      message: `the agent used up the task's max_duration (${Math.round(facts.maxDurationMs / 1000)} s of agent time) and was stopped mid-run`,
    };
  if (result.stopped && facts.stopped !== null) return { kind: 'stopped', reason: facts.stopped, progressed };
  const { failure } = facts;
  if (failure !== null) {
    if (failure.kind === 'usage-limit')
      return { kind: 'usage-limit', resetAtMs: failure.resetAtMs ?? null, message: failure.message };
    // A harness that could not be started: the spawn's own error (ENOENT, EACCES…) goes into the report's stack.
    if (failure.kind === 'hard' && result.spawnError !== null)
      return { kind: 'hard', code: failure.code, message: failure.message, error: result.spawnError };
    return { kind: failure.kind, code: failure.code, message: failure.message };
  }
  // A refused fork does not always end the agent (bash retries and may exit 0): the limit decides.
  if (facts.limitHit !== null)
    return {
      kind: 'nonzero-exit',
      exitCode: result.exitCode,
      signal: result.signal,
      progressed,
      limit: facts.limitHit,
    };
  // A question beats a promise in the same reply: an agent that still asks is not done, and a task
  // in Done/ that was not done is the worst ending (docs/decisions.md).
  if (facts.asking.kind === 'asked') return { kind: 'asked', question: facts.asking.question };
  if (facts.completionFound) return { kind: 'claim', progressed, exitCode: result.exitCode };
  if (result.exitCode === 0) return { kind: 'ok', progressed };
  return { kind: 'nonzero-exit', exitCode: result.exitCode, signal: result.signal, progressed };
}

/** The task's total time ran out while the agent worked: it was stopped, and the task ends. */
function totalTimeout(totalMs: number, iteration: number): IterationOutcome {
  const message = `the task used its total time (${Math.round(totalMs / 1000)} s, persistence_loop.timeout.total) during iteration ${iteration}, and the agent was stopped mid-run`;
  return {
    kind: 'hard',
    code: 'E_TOTAL_TIMEOUT',
    message,
    error: new WiggumError('E_TOTAL_TIMEOUT', message, { details: { totalMs, iteration } }),
  };
}

/** The name of an outcome in the history. */
export function outcomeName(outcome: IterationOutcome): string {
  if (outcome.kind === 'claimed') return outcome.accepted ? 'complete' : 'refused';
  if (outcome.kind === 'ok') return 'continue';
  if (outcome.kind === 'nonzero-exit' && outcome.limit !== undefined) return 'limit-exceeded';
  return outcome.kind;
}
