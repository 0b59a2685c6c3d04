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
        return EXIT.usage;
      default:
        return EXIT.failed;
    }
  }
  return EXIT.failed;
}
