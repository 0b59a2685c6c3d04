/**
 * Every failure wiggum raises on purpose is a WiggumError with a stable `code`.
 * Callers branch on `code`, never on message text; the message is for people and says what to do next.
 */
export type ErrorCode =
  // input and configuration
  | 'E_USAGE'
  | 'E_CONFIG'
  | 'E_TASK_TOO_LARGE'
  | 'E_TASK_ENCODING'
  | 'E_TASK_FRONTMATTER'
  | 'E_TASK_YAML'
  | 'E_TASK_SCHEMA'
  | 'E_TASK_NOT_FOUND'
  | 'E_TASK_UNREADABLE'
  | 'E_TASK_GONE'
  | 'E_TASK_EMPTY'
  | 'E_NO_HARNESS'
  | 'E_TASK_UNANSWERED'
  /** A queue address (`--queue`, `queue:`) that is not `redis://HOST:PORT[/DB]`. */
  | 'E_QUEUE_URL'
  // storage
  | 'E_SYMLINK_REFUSED'
  | 'E_WRITE'
  | 'E_CHECKPOINT_CONFLICT'
  | 'E_MEMORY_CORRUPT'
  | 'E_MEMORY_UNAVAILABLE'
  /** A memory file the agent wrote is over its limit (memory.limits) or not a regular file: not read. */
  | 'E_MEMORY_TOO_LARGE'
  | 'E_LOCKED'
  // harness
  | 'E_HARNESS_UNKNOWN'
  | 'E_HARNESS_MISSING'
  | 'E_HARNESS_SPAWN'
  | 'E_HARNESS_TIMEOUT'
  | 'E_HARNESS_IDLE'
  | 'E_HARNESS_AUTH'
  | 'E_HARNESS_RATE_LIMIT'
  | 'E_HARNESS_OVERLOADED'
  | 'E_HARNESS_BILLING'
  | 'E_HARNESS_CONTEXT'
  | 'E_HARNESS_USAGE_LIMIT'
  | 'E_HARNESS_NETWORK'
  | 'E_HARNESS_EXIT'
  | 'E_HARNESS_TEMPFAIL'
  /** A failure the user declared transient (persistence_loop.retry.retriable_errors). */
  | 'E_HARNESS_RETRIABLE'
  /** The harness kept failing with network or overload errors for longer than persistence_loop.outage_max_wait. */
  | 'E_HARNESS_OUTAGE'
  | 'E_HARNESS_FATAL'
  | 'E_WORKDIR'
  | 'E_GIT'
  /** A merge landing still conflicted (or failed its check on the merged result) after git.land_attempts. */
  | 'E_LAND_CONFLICT'
  /** A push or pull-request command failed for good (or kept failing past the retries). */
  | 'E_LAND_FAILED'
  | 'E_VERIFY'
  // the sandbox (src/sandbox/)
  /** A run that must be confined (sandbox.required, mode bwrap) on a machine where bubblewrap cannot run. */
  | 'E_SANDBOX_UNAVAILABLE'
  /** A confined run reached one of its limits (processes, file size): its iteration failed. */
  | 'E_SANDBOX_LIMIT'
  // scale-out (src/queue/)
  /** A queued run would carry more memory than a job may (its memory files past the cap). */
  | 'E_QUEUE_JOB_TOO_LARGE'
  /** A job's data or progress that is not this protocol's (another version, or malformed). */
  | 'E_QUEUE_PROTOCOL'
  /** A task's run stalled more often than queue.max_stalled allows. */
  | 'E_QUEUE_STALLED'
  /** A worker's run was taken over by another worker (its lock lapsed): it stopped, and sent nothing more. */
  | 'E_QUEUE_FENCED'
  // loop endings
  | 'E_MAX_ITERATIONS'
  | 'E_TOTAL_TIMEOUT'
  | 'E_RETRIES_EXHAUSTED'
  | 'E_NO_PROGRESS'
  | 'E_BUDGET'
  | 'E_INTERNAL';

export interface WiggumErrorOptions {
  cause?: unknown;
  /** Structured facts for logs and reports (file, key, line, pid, …). */
  details?: Record<string, unknown>;
}

export class WiggumError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: WiggumErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WiggumError';
    this.code = code;
    this.details = options.details ?? {};
  }
}

export function isWiggumError(error: unknown, code?: ErrorCode): error is WiggumError {
  return error instanceof WiggumError && (code === undefined || error.code === code);
}

/** The errno-style code of a Node system error (`ENOENT`, `EACCES`, …), if it has one. */
export function systemErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = error.code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** Turns anything thrown into an Error without losing it (never a string, never null). */
export function toError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  return new WiggumError('E_INTERNAL', `non-error value thrown: ${String(thrown)}`, { details: { thrown } });
}
