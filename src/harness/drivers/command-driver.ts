import type { AgentReport, HarnessDriver, OutputReader } from './driver.js';
import { lastLine } from './driver.js';
import type { ProcessResult } from '../run-process.js';

/** sysexits.h: "temporary failure, try again later". */
export const EXIT_TEMPFAIL = 75;
/** sysexits.h: "permission denied" and "configuration error": retrying will not help. */
export const EXIT_NOPERM = 77;
export const EXIT_CONFIG = 78;

/**
 * Any configured command. Its output is plain text (the promise is looked for in stdout), and its
 * exit code is the whole protocol, with no guessing from text: 0 done for this iteration,
 * 75 transient (retried with backoff), 77 or 78 hard (the task is rejected), anything else a
 * failed iteration that is recorded while the loop goes on.
 */
export const commandDriver: HarnessDriver = {
  kind: 'command',
  installHint: '',
  createReader(): OutputReader {
    return {
      push: () => undefined,
      urgentFailure: () => null,
      display: (chunk) => chunk.toString(),
      finish: (result: ProcessResult): AgentReport => {
        const said = lastLine(result.stderrTail) || lastLine(result.stdoutTail);
        const detail = said === '' ? '' : `: ${said}`;
        if (result.exitCode === EXIT_TEMPFAIL) {
          return {
            finalMessage: null,
            failure: {
              kind: 'transient',
              code: 'E_HARNESS_TEMPFAIL',
              message: `the harness reported a temporary failure (exit ${EXIT_TEMPFAIL})${detail}`,
            },
          };
        }
        if (result.exitCode === EXIT_NOPERM || result.exitCode === EXIT_CONFIG) {
          return {
            finalMessage: null,
            failure: {
              kind: 'hard',
              code: 'E_HARNESS_FATAL',
              message: `the harness reported a failure that retrying cannot fix (exit ${result.exitCode})${detail}`,
            },
          };
        }
        return { finalMessage: null, failure: null };
      },
    };
  },
};
