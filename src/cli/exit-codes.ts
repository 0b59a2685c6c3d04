import { isWiggumError } from '../errors.js';

/** Exit codes: 0 complete, 1 failed or rejected, 2 could not start (usage, config, lock, no such task), 3 stopped. */
export const EXIT = {
  complete: 0,
  failed: 1,
  usage: 2,
  stopped: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for an error that escaped a command. */
export function exitCodeFor(error: unknown): ExitCode {
  if (isWiggumError(error)) {
    switch (error.code) {
      case 'E_USAGE':
      case 'E_CONFIG':
      case 'E_LOCKED':
      case 'E_TASK_NOT_FOUND':
      case 'E_NO_HARNESS':
      case 'E_TASK_EMPTY':
      case 'E_TASK_UNANSWERED':
      case 'E_QUEUE_URL':
      case 'E_SANDBOX_UNAVAILABLE':
        return EXIT.usage;
      // Every other code: the command ran, and the task failed. Each is named so that a new code
      // is given its exit code on purpose (lint's switch-exhaustiveness-check).
      case 'E_BUDGET':
      case 'E_CHECKPOINT_CONFLICT':
      case 'E_GIT':
      case 'E_HARNESS_AUTH':
      case 'E_HARNESS_BILLING':
      case 'E_HARNESS_CONTEXT':
      case 'E_HARNESS_EXIT':
      case 'E_HARNESS_FATAL':
      case 'E_HARNESS_IDLE':
      case 'E_HARNESS_MISSING':
      case 'E_HARNESS_NETWORK':
      case 'E_HARNESS_OUTAGE':
      case 'E_HARNESS_OVERLOADED':
      case 'E_HARNESS_RATE_LIMIT':
      case 'E_HARNESS_RETRIABLE':
      case 'E_HARNESS_SPAWN':
      case 'E_HARNESS_TEMPFAIL':
      case 'E_HARNESS_TIMEOUT':
      case 'E_HARNESS_UNKNOWN':
      case 'E_HARNESS_USAGE_LIMIT':
      case 'E_INTERNAL':
      case 'E_LAND_CONFLICT':
      case 'E_LAND_FAILED':
      case 'E_MAX_ITERATIONS':
      case 'E_MEMORY_CORRUPT':
      case 'E_MEMORY_TOO_LARGE':
      case 'E_MEMORY_UNAVAILABLE':
      case 'E_NO_PROGRESS':
      case 'E_QUEUE_FENCED':
      case 'E_QUEUE_JOB_TOO_LARGE':
      case 'E_QUEUE_PROTOCOL':
      case 'E_QUEUE_STALLED':
      case 'E_RETRIES_EXHAUSTED':
      case 'E_SANDBOX_LIMIT':
      case 'E_SYMLINK_REFUSED':
      case 'E_TASK_ENCODING':
      case 'E_TASK_FRONTMATTER':
      case 'E_TASK_GONE':
      case 'E_TASK_SCHEMA':
      case 'E_TASK_TOO_LARGE':
      case 'E_TASK_UNREADABLE':
      case 'E_TASK_YAML':
      case 'E_TOTAL_TIMEOUT':
      case 'E_VERIFY':
      case 'E_WORKDIR':
      case 'E_WRITE':
      default:
        return EXIT.failed;
    }
  }
  return EXIT.failed;
}
