import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readTaskState } from '../task/state.js';
import { isTaskFileName } from '../vault/names.js';

/**
 * Where a running task's file went when it is no longer at `file`: the one task file in the same
 * folder whose checkpoint carries the run's `session` (its author renamed it, as Obsidian does when
 * a note's title changes). Null when there is none, or more than one (a copy: which is the task is
 * not for wiggum to guess). Read only when the file is missing, so its cost is paid once per rename.
 */
export async function findRenamedTaskFile(file: string, session: string): Promise<string | null> {
  const folder = dirname(file);
  let names: string[];
  try {
    names = (await readdir(folder)).filter(isTaskFileName);
  } catch {
    return null;
  }
  const found: string[] = [];
  for (const name of names) {
    const path = join(folder, name);
    if (path === file) continue;
    const state = await readTaskState(path).catch(() => null);
    if (state?.loop?.session === session) found.push(path);
  }
  return found.length === 1 ? (found[0] ?? null) : null;
}
