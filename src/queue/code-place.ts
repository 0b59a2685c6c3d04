import { z } from 'zod';

/**
 * Where a task's code lives while its run moves between machines: a git remote every worker
 * reaches, the task's branch there, and the last commit pushed to it (null: nothing pushed yet, the
 * branch does not exist on the remote). A worker clones the remote, checks out `commit` and pushes
 * each iteration with a lease on it (fencing.ts).
 */
export interface CodePlace {
  remote: string;
  branch: string;
  commit: string | null;
  /** Where a branch that does not exist yet starts: a branch of the remote (null: the remote's default). */
  base: string | null;
}

/** A full commit id: SHA-1 (40 hex digits) or SHA-256 (64). Abbreviated ids are refused: they can become ambiguous. */
export const COMMIT_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * A branch name git accepts (`git check-ref-format --branch`), kept to a portable alphabet: no
 * leading `-` (it would read as an option), no `..`, `//`, `@{`, no trailing `/`, `.` or `.lock`.
 */
export const BRANCH_PATTERN = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\.lock$)[A-Za-z0-9._/@-]{1,200}(?<![./])$/;

/**
 * A git remote URL or path: anything git takes as a repository, but never something that reads as
 * an option, and no whitespace or control characters (it is passed as one argument, never to a shell).
 */
export const REMOTE_PATTERN = /^(?!-)[^\s\u0000-\u001f]{1,2000}$/;

export const codePlaceSchema = z.strictObject({
  remote: z.string().regex(REMOTE_PATTERN, {
    message: 'the git remote is a URL or path every worker reaches (no spaces, not starting with "-")',
  }),
  branch: z.string().regex(BRANCH_PATTERN, { message: 'not a branch name git accepts' }),
  commit: z.string().regex(COMMIT_PATTERN, { message: 'a full commit id (40 or 64 hex digits)' }).nullable(),
  base: z.string().regex(BRANCH_PATTERN, { message: 'not a branch name git accepts' }).nullable(),
});
