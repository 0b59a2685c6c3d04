import { isWiggumError } from '../errors.js';
import { runCaptured } from '../harness/run-captured.js';
import { git } from './git.js';
import { DEFAULT_PR_COMMAND, classifyLandFailure, expandPrArgs, firstHttpsUrl } from './pr-failure.js';
import type { PrCommand } from './pr-failure.js';

export interface LandPrOptions {
  /** A work tree of the repository; the command runs there too (gh reads the repository from it). */
  repo: string;
  branch: string;
  base: string;
  /** Default `origin`. */
  remote?: string;
  /** For `{title}`; default the branch name. */
  title?: string;
  /** Default `gh pr create --fill --head {branch} --base {base}`. */
  command?: PrCommand;
}

export type LandPrOutcome =
  /** `url` is null when the command succeeded without printing one. */
  | { kind: 'opened'; url: string | null; output: string }
  | { kind: 'failed'; stage: 'push' | 'command'; retry: 'transient' | 'hard'; message: string };

/**
 * Pushes the task's branch to the remote, then runs the pull-request command and returns the first
 * https URL it printed. A failure comes back classified, for the caller to retry with backoff
 * (`transient`) or report (`hard`); nothing here retries or sleeps. A pull request that is already
 * open counts as opened, so a landing retried after a crash does not fail on its own success.
 */
export async function landPr(options: LandPrOptions): Promise<LandPrOutcome> {
  const { repo, branch, base } = options;
  const remote = options.remote ?? 'origin';
  const command = options.command ?? DEFAULT_PR_COMMAND;

  const push = await git(repo, ['push', '--porcelain', remote, `refs/heads/${branch}:refs/heads/${branch}`]);
  if (push.exitCode !== 0 || push.signal !== null) {
    const output = `${push.stdout}\n${push.stderr}`.trim();
    const retry = classifyLandFailure({ stage: 'push', exitCode: push.exitCode, signal: push.signal, output });
    return {
      kind: 'failed',
      stage: 'push',
      retry: retry === 'transient' ? 'transient' : 'hard',
      message: `git push of ${branch} to ${remote} failed: ${lastLines(output)}`,
    };
  }

  const args = expandPrArgs(command.args, { branch, base, remote, title: options.title ?? branch });
  const shown = [command.command, ...args].join(' ');
  let result;
  try {
    result = await runCaptured(command.command, args, {
      cwd: repo,
      env: { ...process.env, ...command.env },
      timeoutMs: command.timeoutMs,
    });
  } catch (error) {
    if (!isWiggumError(error, 'E_HARNESS_MISSING')) throw error;
    return { kind: 'failed', stage: 'command', retry: 'hard', message: `${error.message} (git.pr runs ${shown})` };
  }
  const output = `${result.stdout}\n${result.stderr}`.trim();
  if (result.exitCode === 0 && result.signal === null)
    return { kind: 'opened', url: firstHttpsUrl(result.stdout) ?? firstHttpsUrl(result.stderr), output };
  const verdict = classifyLandFailure({ stage: 'command', exitCode: result.exitCode, signal: result.signal, output });
  if (verdict === 'exists') return { kind: 'opened', url: firstHttpsUrl(output), output };
  const how =
    result.signal !== null
      ? `was stopped (${result.signal}; timeout ${command.timeoutMs} ms?)`
      : `exited ${result.exitCode}`;
  return { kind: 'failed', stage: 'command', retry: verdict, message: `${shown} ${how}: ${lastLines(output)}` };
}

/** The last few lines of a tool's output: where git and gh say what went wrong. */
function lastLines(output: string): string {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  return lines.slice(-4).join(' / ') || '(no output)';
}
