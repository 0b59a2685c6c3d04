import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readTaskState } from '../task/state.js';

/**
 * Where a running task's file went when it is no longer at `file`: the one task file in the same
 * folder whose checkpoint carries the run's `session` (its author renamed it, as Obsidian does when
 * a note's title changes). Null when there is none, or more than one (a copy: which is the task is
 * not for wiggum to guess). Read only when the file is missing, so its cost is paid once per rename.
 * `isTaskFileName` is the host's word on which names are task files (run-host.ts TaskFileHome).
 */
export async function findRenamedTaskFile(
  file: string,
  session: string,
  isTaskFileName: (name: string) => boolean,
): Promise<string | null> {
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

/** How far a search for a task moved out of its folder looks: enough for a vault's folders, never a whole disk. */
const MOVED_SEARCH_DEPTH = 4;
const MOVED_SEARCH_ENTRIES = 20_000;

/**
 * Where a running task's file went when it left its folder for another folder of the vault (Later/,
 * an archive): the one file of the same name under `root` whose checkpoint carries `session`.
 * Hidden folders (.wiggum, .git, .obsidian, .trash) are not searched; neither is the file's own
 * folder (`findRenamedTaskFile` looks there). Null when none is found, or more than one.
 */
export async function findMovedTaskFile(root: string, file: string, session: string): Promise<string | null> {
  const name = basename(file);
  const own = dirname(file);
  const found: string[] = [];
  let seen = 0;
  let level = [root];
  for (let depth = 0; depth <= MOVED_SEARCH_DEPTH && level.length > 0 && seen < MOVED_SEARCH_ENTRIES; depth += 1) {
    const next: string[] = [];
    for (const folder of level) {
      const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
      seen += entries.length;
      for (const entry of entries) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
        const path = join(folder, entry.name);
        if (entry.isDirectory()) next.push(path);
        else if (entry.isFile() && entry.name === name && folder !== own) {
          const state = await readTaskState(path).catch(() => null);
          if (state?.loop?.session === session) found.push(path);
        }
      }
      if (seen >= MOVED_SEARCH_ENTRIES) break;
    }
    level = next;
  }
  return found.length === 1 ? (found[0] ?? null) : null;
}
