/**
 * The pure parts of a `pr` landing: the pull-request command entry and its placeholders, the URL in
 * its output, and whether a failed push or command is worth retrying.
 */

/** A pull-request command, shaped like a harness entry (config `git.pr`). */
export interface PrCommand {
  command: string;
  /** May hold `{branch}`, `{base}`, `{title}`, `{remote}`. */
  args: string[];
  env: Record<string, string>;
  timeoutMs: number;
}

/** `gh pr create --fill --head {branch} --base {base}`, as the issue asks. */
export const DEFAULT_PR_COMMAND: PrCommand = {
  command: 'gh',
  args: ['pr', 'create', '--fill', '--head', '{branch}', '--base', '{base}'],
  env: {},
  timeoutMs: 120_000,
};

export interface PrValues {
  branch: string;
  base: string;
  title: string;
  remote: string;
}

/** Fills the placeholders into each argument; unknown `{words}` are left alone (as a harness's are). */
export function expandPrArgs(args: readonly string[], values: PrValues): string[] {
  return args.map((arg) =>
    arg.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (name in values ? values[name as keyof PrValues] : whole)),
  );
}

/** The first https URL in `text`, without trailing punctuation; null when there is none. */
export function firstHttpsUrl(text: string): string | null {
  const match = /https:\/\/[^\s"'<>()]+/.exec(text);
  return match === null ? null : match[0].replace(/[.,;:]+$/, '');
}

/** A push or pull-request command that did not succeed. */
export interface LandFailure {
  stage: 'push' | 'command';
  exitCode: number | null;
  /** Set when the process was killed (a timeout kills with SIGKILL). */
  signal: string | null;
  /** Its stdout and stderr. */
  output: string;
}

/**
 * - `exists`: the pull request is already open (a landing retried after the command succeeded but
 *   before the task moved): a success, its URL in the output;
 * - `transient`: the network, the server or a rate limit; the caller retries with backoff;
 * - `hard`: anything a retry cannot fix (authentication, a rejected push, a missing remote or
 *   command, bad arguments); the caller reports it.
 * Decided on the output of tools that give no codes (git push and gh exit 1 for everything); an
 * unknown failure is hard, so that a mistake costs a report, not an endless retry.
 */
export function classifyLandFailure(failure: LandFailure): 'exists' | 'transient' | 'hard' {
  const text = failure.output;
  if (failure.stage === 'command' && /pull request for branch .* already exists/i.test(text)) return 'exists';
  if (failure.signal !== null) return 'transient';
  if (HARD.some((pattern) => pattern.test(text))) return 'hard';
  if (TRANSIENT.some((pattern) => pattern.test(text))) return 'transient';
  return 'hard';
}

const HARD = [
  /authentication failed|could not read username|permission denied|HTTP 40[13]\b(?!.*rate limit)|returned error: 40[134]/i,
  /not logged in|gh auth login|bad credentials/i,
  /\[rejected\]|non-fast-forward|fetch first|protected branch|pre-receive hook declined/i,
  /does not appear to be a git repository|no such remote|repository not found|not a git repository/i,
  /unknown flag|unknown command|invalid argument|no commits between/i,
];

const TRANSIENT = [
  /HTTP 5\d\d\b|\b50[234]\b|bad gateway|service unavailable|gateway time-?out|internal server error/i,
  /rate limit|secondary rate|too many requests|HTTP 429/i,
  /could not resolve host|temporary failure in name resolution|connection (reset|refused|timed out)|timed? ?out/i,
  /the remote end hung up unexpectedly|early EOF|unexpected disconnect|RPC failed|TLS|SSL/i,
  /unable to access|network is unreachable|try again later|temporarily/i,
];
