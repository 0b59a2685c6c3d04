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
