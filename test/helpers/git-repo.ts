import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readlinkSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tempDir } from './temp-dir.js';

/** Identity for commits made in tests, by git itself and by the fake agent it starts. */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'wiggum test',
  GIT_AUTHOR_EMAIL: 'test@wiggum.invalid',
  GIT_COMMITTER_NAME: 'wiggum test',
  GIT_COMMITTER_EMAIL: 'test@wiggum.invalid',
};

export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...GIT_IDENTITY } }).trim();
}

export interface GitRepoOptions {
  /** The files of the first commit (name → text); default a README.md. */
  files?: Record<string, string>;
  /** Its message; default `initial commit`. */
  message?: string;
}

/** A repository on `main` with one commit; `dir` defaults to a new temp dir. */
export function gitRepo(dir = tempDir('wiggum-repo-'), options: GitRepoOptions = {}): string {
  git(dir, 'init', '--quiet', '--initial-branch=main');
  git(dir, 'config', 'user.name', GIT_IDENTITY.GIT_AUTHOR_NAME);
  git(dir, 'config', 'user.email', GIT_IDENTITY.GIT_AUTHOR_EMAIL);
  for (const [name, text] of Object.entries(options.files ?? { 'README.md': '# project\n' }))
    writeFileSync(join(dir, name), text);
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', options.message ?? 'initial commit');
  return dir;
}

/**
 * Everything of a working copy a task must never change: HEAD, the index, status, the stash, a
 * rebase in progress, and the bytes of every file outside `.git/`.
 */
export function fingerprint(dir: string): string {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (path !== join(dir, '.git')) walk(path);
      } else if (entry.isSymbolicLink()) files.push(`${relative(dir, path)} -> ${readlinkSync(path)}`);
      else files.push(`${relative(dir, path)} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
    }
  };
  walk(dir);
  const rebase = join(dir, '.git', 'rebase-merge');
  const quiet = (...args: string[]): string => {
    try {
      return git(dir, ...args);
    } catch {
      return `(git ${args.join(' ')} failed)`;
    }
  };
  return [
    quiet('symbolic-ref', '-q', 'HEAD'),
    quiet('rev-parse', 'HEAD'),
    quiet('ls-files', '-s'),
    quiet('status', '--porcelain=v1', '-uall'),
    quiet('stash', 'list'),
    existsSync(rebase) ? readdirSync(rebase).sort().join(',') : 'no rebase',
    ...files,
  ].join('\n');
}
