/**
 * Which task a user means by what they typed: the pure half of finding a task (find-task.ts reads
 * the folders). A user has a file name ("Fix login bug", "Fix login bug.md"), a path
 * ("Approved/Fix login bug.md", absolute or relative) or an id, maybe in another letter case
 * ("FIX-LOGIN-BUG"); each of these names the task whose id is `Fix-login-bug`.
 */

/** One task file in the search, in search order (the folders in order, each sorted by name). */
export interface TaskEntry {
  /** The file's path, in the folder's own spelling. */
  file: string;
  /** The file name, `Fix login bug.md`. */
  name: string;
  /** Its id: from the frontmatter when it parses, else from the file name. */
  id: string;
}

export type TaskMatch<E extends TaskEntry> =
  | { kind: 'found'; entry: E; by: 'path' | 'id' | 'name' | 'any-case' }
  | { kind: 'ambiguous'; candidates: E[] }
  | { kind: 'none' };

/**
 * The task `ref` names among `entries`; `refFiles` are the paths `ref` stands for (from the current
 * folder and from the vault root), in the folders' spelling. The first rule that matches decides:
 *
 * 1. a path: the entry at one of `refFiles`;
 * 2. the exact id: `<id>.md` first, else the first in search order (an id used again in Done/ is
 *    one task to the user, so this is never ambiguous);
 * 3. the exact file name, with or without `.md`;
 * 4. the id or file name in any letter case.
 *
 * Rules 3 and 4 are ambiguous when their matches carry more than one id (`DEPLOY` against
 * `Deploy.md` and `deploy.md`): the caller lists the candidates instead of guessing.
 */
export function matchTaskRef<E extends TaskEntry>(
  ref: string,
  entries: readonly E[],
  refFiles: readonly string[],
): TaskMatch<E> {
  if (ref.trim() === '') return { kind: 'none' };
  const byPath = entries.find((entry) => refFiles.includes(entry.file));
  if (byPath !== undefined) return { kind: 'found', entry: byPath, by: 'path' };

  const byId = preferOwnName(entries.filter((entry) => entry.id === ref));
  if (byId !== undefined) return { kind: 'found', entry: byId, by: 'id' };

  const byName = entries.filter((entry) => entry.name === ref || entry.name === `${ref}.md`);
  if (byName.length > 0) return decided(byName, 'name');

  const lower = ref.toLowerCase();
  const anyCase = entries.filter((entry) => {
    const name = entry.name.toLowerCase();
    return entry.id.toLowerCase() === lower || name === lower || name === `${lower}.md`;
  });
  if (anyCase.length > 0) return decided(anyCase, 'any-case');
  return { kind: 'none' };
}

function decided<E extends TaskEntry>(matches: E[], by: 'name' | 'any-case'): TaskMatch<E> {
  const ids = new Set(matches.map((entry) => entry.id));
  const chosen = preferOwnName(matches);
  if (ids.size === 1 && chosen !== undefined) return { kind: 'found', entry: chosen, by };
  return { kind: 'ambiguous', candidates: matches };
}

/** Of files with one id, `<id>.md` (the first run's name; a later one got a `-2` suffix), else the first. */
function preferOwnName<E extends TaskEntry>(matches: E[]): E | undefined {
  return matches.find((entry) => entry.name === `${entry.id}.md`) ?? matches[0];
}
