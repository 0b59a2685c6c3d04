import { NO_SUBMODULE_STATUS, git } from './git.js';
import type { GitOptions } from './git.js';

/** The repository at one moment: HEAD and what is not committed. */
export interface GitState {
  head: string | null;
  /** Paths with uncommitted changes (untracked ones included), sorted. */
  dirty: string[];
}

/** What an iteration did to the repository: history records at least the count of changed files. */
export interface GitSummary {
  headBefore: string | null;
  headAfter: string | null;
  /** `sha subject` of each commit made, oldest first. */
  commits: string[];
  filesChanged: number;
  /** Changed files: committed since `headBefore`, plus anything left uncommitted. */
  files: string[];
}

const MAX_FILES_LISTED = 200;

/**
 * HEAD and the uncommitted paths from one `git status --porcelain=v2 --branch -z` (one process
 * instead of rev-parse + status). NUL-separated output keeps unusual file names intact.
 */
export async function gitState(dir: string, options: GitOptions = {}): Promise<GitState> {
  const result = await git(
    dir,
    ['status', NO_SUBMODULE_STATUS, '--porcelain=v2', '--branch', '--untracked-files=all', '-z'],
    options,
  );
  if (result.exitCode !== 0) return { head: null, dirty: [] };
  let head: string | null = null;
  const dirty = new Set<string>();
  const records = result.stdout.split('\0');
  for (let i = 0; i < records.length; i += 1) {
    const record = records[i] ?? '';
    if (record.startsWith('# branch.oid ')) {
      const oid = record.slice('# branch.oid '.length);
      head = oid === '(initial)' ? null : oid;
    } else if (record.startsWith('1 ')) {
      dirty.add(field(record, 8));
    } else if (record.startsWith('2 ')) {
      // A rename or copy; the next record is its original path, which changed too.
      dirty.add(field(record, 9));
      i += 1;
      const original = records[i];
      if (original !== undefined && original !== '') dirty.add(original);
    } else if (record.startsWith('u ')) {
      dirty.add(field(record, 10));
    } else if (record.startsWith('? ')) {
      dirty.add(record.slice(2));
    }
  }
  return { head, dirty: [...dirty].sort() };
}

/** Everything after the first `count` space-separated fields: the path, which may hold spaces. */
function field(record: string, count: number): string {
  let at = 0;
  for (let n = 0; n < count; n += 1) at = record.indexOf(' ', at) + 1;
  return record.slice(at);
}

/**
 * What changed since `before`: the new state (one process), and, only when HEAD moved, the commits
 * and their files (one `git log`).
 */
export async function changesSince(
  dir: string,
  before: GitState,
  options: GitOptions = {},
): Promise<{ state: GitState; summary: GitSummary }> {
  const state = await gitState(dir, options);
  const commits: string[] = [];
  const files = new Set(state.dirty);
  if (state.head !== null && state.head !== before.head) {
    const range = before.head === null ? [state.head] : [`${before.head}..${state.head}`];
    const log = await git(dir, ['log', '--reverse', '--format=%x00%h %s', '--name-only', ...range]);
    if (log.exitCode === 0) {
      for (const entry of log.stdout.split('\0').slice(1)) {
        const [subject, ...paths] = entry.split('\n');
        if (subject !== undefined) commits.push(subject);
        for (const path of paths) if (path !== '') files.add(path);
      }
    }
  }
  const list = [...files].sort();
  return {
    state,
    summary: {
      headBefore: before.head,
      headAfter: state.head,
      commits,
      filesChanged: list.length,
      files: list.slice(0, MAX_FILES_LISTED),
    },
  };
}
