import type { LoopConfig } from '../config/config.js';
import type { Spent } from '../memory/spent.js';
import type { ErrorCode } from '../errors.js';
import { budgetCrossed } from './budget.js';
import type { IterationOutcome, StopReason } from './outcome.js';
import type { AskedText } from './question.js';
import { isOutageCode, probeDelayMs, retryDelayMs } from './retry-policy.js';
import { plural } from '../plural.js';

/** The loop's own counters, checkpointed into the task after every iteration. */
export interface LoopState {
  /** Iterations finished so far; the next one is `iteration + 1`. */
  iteration: number;
  maxIterations: number;
  /** Transient failures in a row for the iteration being attempted. */
  attempt: number;
  /** Usage-limit waits in a row. */
  usageWaits: number;
  /**
   * When the current streak of transient failures and usage limits began (epoch ms), or null while
   * the harness answers: an outage and a limit without a reset time are waited for from then.
   */
  waitingSinceMs: number | null;
  /** Iterations in a row with no sign of progress. */
  noProgressStreak: number;
  /** Time spent on this task across runs and restarts (harness runs and waits), for the total timeout. */
  activeMs: number;
  /** Why the last completion claim was refused; goes into the next prompt. */
  refusal: string | null;
  /** The 80 % warning has been logged. */
  warned: boolean;
  /** Tokens, cost and agent time used across runs and restarts, for the budgets. */
  spent: Spent;
}

export type DecisionPolicy = Pick<
  LoopConfig,
  'retry' | 'noProgressLimit' | 'usageLimitMaxWaitMs' | 'outageMaxWaitMs' | 'failFast'
>;

/** What a wait is for: the agent's usage limit, or its service that does not answer. */
export type WaitCause = 'usage-limit' | 'outage';

/** What the runner does next. */
export type NextAction =
  | { kind: 'continue' }
  | { kind: 'retry'; delayMs: number; attempt: number }
  | { kind: 'wait'; untilMs: number; why: WaitCause }
  | { kind: 'done' }
  | { kind: 'reject'; code: ErrorCode; reason: string }
  | { kind: 'stop'; reason: StopReason }
  /** The agent asked a person: the task moves to Blocked/ with its question. */
  | { kind: 'block'; question: AskedText };

export interface Decision {
  action: NextAction;
  state: LoopState;
}

/**
 * Decides what follows an iteration's outcome: go on, retry after a backoff, wait out a usage limit
 * or an outage, complete, reject or stop. Pure: the clock's `nowMs` and `random` are passed in, so
 * every branch is tested by a table.
 * `harnessFailing` says that another task on the same harness is failing with network or
 * overload errors too: the service is down, not this task's luck, so its retries are not spent.
 */
export function decide(
  outcome: IterationOutcome,
  state: LoopState,
  policy: DecisionPolicy,
  nowMs: number,
  random: () => number,
  harnessFailing = false,
): Decision {
  switch (outcome.kind) {
    case 'stopped': {
      const spent = outcome.progressed
        ? {
            ...state,
            iteration: state.iteration + 1,
            attempt: 0,
            usageWaits: 0,
            noProgressStreak: 0,
            refusal: null,
            waitingSinceMs: null,
          }
        : state;
      return { action: { kind: 'stop', reason: outcome.reason }, state: spent };
    }

    case 'hard':
      return { action: { kind: 'reject', code: outcome.code, reason: outcome.message }, state };

    // Asking is not an iteration: the count, the retry attempt and the stuck streak stay as they
    // were, and the run after the answer is this same iteration again, with the answer.
    case 'asked':
      return {
        action: { kind: 'block', question: outcome.question },
        state: { ...state, attempt: 0, usageWaits: 0, waitingSinceMs: null },
      };

    case 'transient': {
      if (policy.failFast) return reject(state, outcome.code, `${outcome.message} (fail-fast: no retries)`);
      const attempt = state.attempt + 1;
      const since = state.waitingSinceMs ?? nowMs;
      const next = { ...state, attempt, waitingSinceMs: since };
      if (isOutageCode(outcome.code) && (attempt > policy.retry.maxAttempts || harnessFailing)) {
        const waited = nowMs - since;
        if (waited >= policy.outageMaxWaitMs) {
          return reject(
            next,
            'E_HARNESS_OUTAGE',
            `outage: the harness kept failing with network or overload errors for ${seconds(waited)} s, longer than persistence_loop.outage_max_wait (${seconds(policy.outageMaxWaitMs)} s); the last one: ${outcome.message}. Once the service answers again, move the task back to Approved/`,
          );
        }
        const untilMs = Math.min(nowMs + probeDelayMs(attempt, policy.retry, random), since + policy.outageMaxWaitMs);
        return { action: { kind: 'wait', untilMs, why: 'outage' }, state: next };
      }
      if (attempt > policy.retry.maxAttempts) {
        return reject(
          state,
          outcome.code === 'E_MEMORY_TOO_LARGE' ? outcome.code : 'E_RETRIES_EXHAUSTED',
          `${outcome.message}; still failing after ${plural(policy.retry.maxAttempts, 'retry', 'retries')}`,
        );
      }
      return { action: { kind: 'retry', attempt, delayMs: retryDelayMs(attempt, policy.retry, random) }, state: next };
    }

    case 'usage-limit': {
      const usageWaits = state.usageWaits + 1;
      const since = state.waitingSinceMs ?? nowMs;
      if (outcome.resetAtMs === null) {
        // No reset time: probe with backoff until the limit lifts, as long as usage_limit_max_wait allows.
        const waited = nowMs - since;
        if (waited >= policy.usageLimitMaxWaitMs) {
          return reject(
            state,
            'E_HARNESS_USAGE_LIMIT',
            `${outcome.message}; still limited after ${seconds(waited)} s of waiting, longer than persistence_loop.usage_limit_max_wait (${seconds(policy.usageLimitMaxWaitMs)} s)`,
          );
        }
        const untilMs = Math.min(
          nowMs + probeDelayMs(usageWaits, policy.retry, random),
          since + policy.usageLimitMaxWaitMs,
        );
        return {
          action: { kind: 'wait', untilMs, why: 'usage-limit' },
          state: { ...state, usageWaits, waitingSinceMs: since },
        };
      }
      if (usageWaits > policy.retry.maxAttempts) {
        return reject(
          state,
          'E_HARNESS_USAGE_LIMIT',
          `${outcome.message}; the limit was hit again after ${plural(policy.retry.maxAttempts, 'wait')}`,
        );
      }
      const untilMs = outcome.resetAtMs;
      if (untilMs - nowMs > policy.usageLimitMaxWaitMs) {
        const at = new Date(untilMs).toISOString();
        return reject(
          state,
          'E_HARNESS_USAGE_LIMIT',
          `${outcome.message}; it resets at ${at}, later than persistence_loop.usage_limit_max_wait allows`,
        );
      }
      return {
        action: { kind: 'wait', untilMs: Math.max(untilMs, nowMs), why: 'usage-limit' },
        state: { ...state, usageWaits, waitingSinceMs: since },
      };
    }

    case 'claimed':
    case 'ok':
    case 'nonzero-exit': {
      const next: LoopState = {
        ...state,
        iteration: state.iteration + 1,
        attempt: 0,
        usageWaits: 0,
        waitingSinceMs: null,
        noProgressStreak: outcome.progressed ? 0 : state.noProgressStreak + 1,
        refusal: outcome.kind === 'claimed' && !outcome.accepted ? outcome.refusal : null,
      };
      if (outcome.kind === 'claimed' && outcome.accepted) return { action: { kind: 'done' }, state: next };
      if (outcome.kind === 'nonzero-exit' && policy.failFast) {
        return reject(
          next,
          'E_HARNESS_EXIT',
          `the harness ${exitDescription(outcome.exitCode, outcome.signal)} (fail-fast)`,
        );
      }
      if (policy.noProgressLimit > 0 && next.noProgressStreak >= policy.noProgressLimit) {
        return reject(
          next,
          'E_NO_PROGRESS',
          `stuck: ${plural(next.noProgressStreak, 'iteration')} in a row with no story passing, commit, changed file or new learning`,
        );
      }
      return { action: { kind: 'continue' }, state: next };
    }
  }
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}

function reject(state: LoopState, code: ErrorCode, reason: string): Decision {
  return { action: { kind: 'reject', code, reason }, state };
}

export function exitDescription(exitCode: number | null, signal: string | null): string {
  return signal !== null ? `was killed by ${signal}` : `exited with code ${exitCode ?? 'unknown'}`;
}

export interface Gate {
  /** A stop flag, a global STOP being held, an interruption or the file gone. */
  stop: StopReason | null;
  nowMs: number;
}

export type GateResult =
  | { kind: 'go'; warn: boolean }
  | { kind: 'stop'; reason: StopReason }
  | { kind: 'reject'; code: ErrorCode; reason: string };

/**
 * The exit conditions checked before every iteration: stop requests, the total timeout, the
 * iteration bound and spending budget, and whether this iteration crosses the warning threshold.
 */
export function gate(
  state: LoopState,
  gateInput: Gate,
  limits: Pick<LoopConfig, 'totalTimeoutMs' | 'warnThreshold' | 'budget'>,
): GateResult {
  if (gateInput.stop !== null) return { kind: 'stop', reason: gateInput.stop };
  const overBudget = budgetCrossed(state.spent, state.iteration, limits.budget);
  if (overBudget !== null) return { kind: 'reject', code: 'E_BUDGET', reason: overBudget };
  if (state.activeMs >= limits.totalTimeoutMs) {
    return {
      kind: 'reject',
      code: 'E_TOTAL_TIMEOUT',
      reason: `the task used its total time budget (${Math.round(limits.totalTimeoutMs / 1000)} s, persistence_loop.timeout.total) after ${plural(state.iteration, 'iteration')}`,
    };
  }
  if (state.iteration >= state.maxIterations) {
    return {
      kind: 'reject',
      code: 'E_MAX_ITERATIONS',
      reason: `reached max_iterations (${state.maxIterations}) without a verified completion`,
    };
  }
  const next = state.iteration + 1;
  return { kind: 'go', warn: !state.warned && next >= Math.ceil(state.maxIterations * limits.warnThreshold) };
}

/**
 * The next step in words, for history.jsonl, logs and reports. `review`: a complete task goes to
 * Review/ for a person, not to Done/, and is never said to.
 */
export function describeNextAction(action: NextAction, review = false): string {
  switch (action.kind) {
    case 'continue':
      return 'next iteration';
    case 'retry':
      return `retry ${action.attempt} in ${(action.delayMs / 1000).toFixed(1)} s`;
    case 'wait':
      return action.why === 'outage'
        ? `harness outage: probe at ${new Date(action.untilMs).toISOString()}`
        : `wait for the usage limit until ${new Date(action.untilMs).toISOString()}`;
    case 'done':
      return review ? 'Review (waits for a person)' : 'Done';
    case 'reject':
      return `Rejected (${action.code})`;
    case 'block':
      return 'Blocked (a question for a person)';
    case 'stop':
      return action.reason === 'stop-flag' ? 'stopped' : action.reason === 'task-gone' ? 'task gone' : 'interrupted';
  }
}
