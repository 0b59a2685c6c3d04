import type { ErrorCode } from '../errors.js';
import type { AskedText } from './question.js';

/**
 * What one harness run came to, as the loop's decision sees it. Built by the runner from the
 * process result, the driver's reading of the output, the stories and the verify check.
 */
export type IterationOutcome =
  /** The agent printed the completion promise; `accepted` once every story passes and verify exits 0. */
  | { kind: 'claimed'; accepted: boolean; refusal: string | null; progressed: boolean; exitCode: number | null }
  /** Exit 0 without a promise: work goes on. */
  | { kind: 'ok'; progressed: boolean }
  /**
   * A non-zero exit or a death by signal that is neither transient nor hard; or a confined run that
   * reached a sandbox limit (`limit`, the message), whatever its exit.
   */
  | { kind: 'nonzero-exit'; exitCode: number | null; signal: string | null; progressed: boolean; limit?: string }
  /** Rate limit, overload, network, timeout: retried with backoff. */
  | { kind: 'transient'; code: ErrorCode; message: string }
  /** The agent's plan is used up until `resetAtMs`: waited out, not counted as a failure. */
  | { kind: 'usage-limit'; resetAtMs: number | null; message: string }
  /** Harness missing, auth refused, invalid task, workdir missing, corrupted memory: rejected. */
  | {
      kind: 'hard';
      code: ErrorCode;
      message: string;
      /** wiggum's own error, where it was raised, with its causes. */ error?: Error;
    }
  /**
   * The run was cut short by a stop request. If it had already changed memory or the repository,
   * that work is kept and the iteration counts: resuming must not redo or hide it.
   */
  | { kind: 'stopped'; reason: StopReason; progressed: boolean }
  /** The agent asked a person (question.ts): the task waits in Blocked/ for the answer. */
  | { kind: 'asked'; question: AskedText };

/** A stop seen where the task lives: its stop flag, or its file gone from the folder it runs in. */
export type SeenStopReason = 'stop-flag' | 'task-gone';

/** Why a run is aborted: a reason seen on disk (its flag, its file gone), or a signal's interruption. */
export type StopReason = SeenStopReason | 'interrupted';

/** Why a stop signal was aborted: its reason when it names one, else an interruption (SIGTERM, Ctrl-C). */
export function stopReasonOf(signal: AbortSignal): StopReason {
  const reason: unknown = signal.reason;
  return reason === 'stop-flag' || reason === 'task-gone' ? reason : 'interrupted';
}
