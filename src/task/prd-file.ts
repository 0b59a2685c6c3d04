import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { resolvePath } from '../config/sources.js';
import { systemErrorCode } from '../errors.js';
import type { Task } from './parse.js';

/**
 * The task's own prd file (`prd:`), or null. A relative path is read from the task file's folder,
 * like a link in a note: the task is written next to its spec, and its workdir may not exist yet.
 */
export function prdFileOf(task: Task): string | null {
  const { prd } = task.frontmatter;
  return prd === undefined ? null : resolvePath(prd, dirname(task.file));
}

/**
 * What is wrong with the task's `prd:` file (missing, a folder, unreadable), or null. `workdir` is
 * the task's, when known: a relative prd: that is found there names the path to write instead.
 */
export async function prdFileProblem(task: Task, workdir: string | null): Promise<string | null> {
  const file = prdFileOf(task);
  const written = task.frontmatter.prd;
  if (file === null || written === undefined) return null;
  try {
    const stats = await stat(file);
    return stats.isFile() ? null : `prd: ${file} is not a file: name the prd JSON file`;
  } catch (error) {
    const code = systemErrorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return `prd: ${file} cannot be read (${code ?? String(error)})`;
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
}
