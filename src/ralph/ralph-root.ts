import { existsSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import { git, isGitRepository } from '../git/git.js';

/**
 * The folder whose `.wiggum/` a `wiggum ralph` started in `cwd` uses: the top of the git work tree
 * `cwd` lies in, else `cwd` itself. A loop started in a subfolder of a repository so reads the
 * repository's `.wiggum/config.yaml` and keeps its state beside the other loops', where a second
 * `.wiggum/` in the subfolder ignored the config and hid the loop from the others.
 */
export async function ralphRoot(cwd: string): Promise<string> {
  if (!(await isGitRepository(cwd))) return cwd;
  const top = await git(cwd, ['rev-parse', '--show-toplevel']).catch(() => null);
  const path = top?.exitCode === 0 ? top.stdout.trim() : '';
  return path === '' ? cwd : path;
}

/**
 * What to tell a user whose subfolder holds loops an earlier wiggum kept there (before ralph used
 * the repository's top): they are not seen from `root`. Null when there are none.
 */
export function strandedLoopsNote(cwd: string, root: string): string | null {
  const real = (path: string): string => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  if (real(cwd) === real(root) || !existsSync(join(cwd, '.wiggum', 'ralph'))) return null;
  const here = relative(real(root), real(cwd));
  return `${join(here, '.wiggum', 'ralph')} holds loops an earlier wiggum kept in this subfolder; ralph now keeps loops in ${join(root, '.wiggum')}, so those are not seen: move ${join(here, '.wiggum', 'ralph')} and ${join(here, '.wiggum', 'sessions')} there to keep them`;
}
