import type { RetriableErrors } from '../config/config.js';
import type { HarnessFailure } from './drivers/driver.js';
import { lastLine } from './drivers/driver.js';
import { excerpt } from './drivers/failure-text.js';

/** What of a finished run the user's rules look at. */
export interface FailedRun {
  exitCode: number | null;
  stdoutTail: string;
  stderrTail: string;
}

/**
 * A failed run the user declared transient in persistence_loop.retry.retriable_errors (an exit code,
 * or output matching a pattern), or null. Only a non-zero exit is looked at: a run that exited 0
 * answered, whatever it printed.
 */
export function retriableFailure(run: FailedRun, rules: RetriableErrors): HarnessFailure | null {
  if (run.exitCode === null || run.exitCode === 0) return null;
  const said = lastLine(run.stderrTail) || lastLine(run.stdoutTail);
  const detail = said === '' ? '' : `: ${excerpt(said, 300)}`;
  if (rules.exitCodes.includes(run.exitCode)) {
    return {
      kind: 'transient',
      code: 'E_HARNESS_RETRIABLE',
      message: `the harness exited with ${run.exitCode}, which persistence_loop.retry.retriable_errors.exit_codes lists as transient${detail}`,
    };
  }
  const output = `${run.stdoutTail}\n${run.stderrTail}`;
  const match = rules.patterns.find((pattern) => pattern.test(output));
  if (match !== undefined) {
    return {
      kind: 'transient',
      code: 'E_HARNESS_RETRIABLE',
      message: `the harness output matches /${match.source}/, which persistence_loop.retry.retriable_errors.patterns lists as transient (exit ${run.exitCode})${detail}`,
    };
  }
  return null;
}
