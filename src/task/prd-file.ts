import { realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { resolvePath } from '../config/sources.js';
import { systemErrorCode } from '../errors.js';
import type { Task } from './parse.js';
import { isInside } from './workdir.js';

/**
 * The task's own prd file (`prd:`), or null. A relative path is read from the task file's folder,
 * like a link in a note: the task is written next to its spec, and its workdir may not exist yet.
 */
export function prdFileOf(task: Task): string | null {
  const { prd } = task.frontmatter;
  return prd === undefined ? null : resolvePath(prd, dirname(task.file));
}

/**
 * Why a prd: whose real path (every symlink resolved) is `real` may not be read, or null: only a
 * file inside one of `roots` (the real paths of the vault and the task's workdir) is. A task file
 * is anyone's text (a synced vault, a shared folder): its prd: must not make wiggum copy another
 * file of this machine into the agent's memory or a note. Pure.
 */
export function prdPlaceProblem(written: string, real: string, roots: readonly string[]): string | null {
  if (roots.some((root) => isInside(real, root))) return null;
  const leads = resolve(written) === real ? '' : ` (it leads to ${real})`;
  return (
    `prd: ${written} is outside the vault and the task's workdir${leads}: a prd: file is read only inside them, ` +
    'so nothing of it was read; move the file into the vault or the workdir and name it there'
  );
}

/**
 * What is wrong with the task's `prd:` file (outside the vault and the workdir, missing, a folder,
 * unreadable), or null; nothing of the file is read. `workdir` is the task's real workdir, when
 * known: a relative prd: that is found there names the path to write instead.
 */
export async function prdFileProblem(task: Task, workdir: string | null, vaultRoot: string): Promise<string | null> {
  const file = prdFileOf(task);
  const written = task.frontmatter.prd;
  if (file === null || written === undefined) return null;
  try {
    const real = await realpath(file);
    const roots = [await realpath(vaultRoot).catch(() => resolve(vaultRoot)), ...(workdir === null ? [] : [workdir])];
    const outside = prdPlaceProblem(written, real, roots);
    if (outside !== null) return outside;
    const stats = await stat(real);
    return stats.isFile() ? null : `prd: ${file} is not a file: name the prd JSON file`;
  } catch (error) {
    const code = systemErrorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return `prd: ${file} cannot be read (${code ?? String(error)})`;
    return missingPrd(written, file, workdir);
  }
}

async function missingPrd(written: string, file: string, workdir: string | null): Promise<string> {
  const inWorkdir = workdir === null ? null : resolvePath(written, workdir);
  const found =
    inWorkdir !== null &&
    inWorkdir !== file &&
    (await stat(inWorkdir).then(
      (s) => s.isFile(),
      () => false,
    ));
  const hint = found
    ? `; it exists relative to the workdir, at ${inWorkdir}: write that path in prd:`
    : ": fix the path (a relative prd: is read from the task file's folder)";
  return `prd: ${written} does not exist (looked for ${file})${hint}`;
}
