import { lstat, readdir, realpath } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { WiggumError } from '../errors.js';
import { idFromFileName } from '../task/id.js';
import type { Task } from '../task/parse.js';
import { TASK_FOLDERS } from '../task/states.js';
import type { TaskFolder } from '../task/states.js';
import { readTaskFile } from '../task/read.js';
import type { VaultLayout } from './layout.js';
import { isTaskFileName } from './names.js';
import { matchTaskRef } from './task-ref.js';
import type { TaskEntry, TaskMatch } from './task-ref.js';

/** A task file found by what a user typed. */
export interface FoundTask extends TaskEntry {
  /** The folder it is in (one of those searched). */
  folder: string;
  /** The parsed task, or null when the file does not parse (its id then comes from its name). */
  task: Task | null;
}

export type VaultFolder = TaskFolder;

/** Every folder a task can be in (the state table's), in the order a lookup by id searches them. */
export function lookupFolders(layout: VaultLayout): string[] {
  return TASK_FOLDERS.map((folder) => layout[folder]);
}

/**
 * The task file `ref` names anywhere in the vault, parsed or not (a file that does not parse is
 * found too: `status ID` then says why): for the commands that read a task wherever it is.
 */
export async function findTaskFile(ref: string, layout: VaultLayout): Promise<FoundTask> {
  const match = await resolveTask(ref, lookupFolders(layout), { root: layout.root });
  if (match.kind === 'found') return match.entry;
  if (match.kind === 'ambiguous') throw ambiguous(ref, match.candidates, layout.root);
  throw notFound(ref, TASK_FOLDERS.map((folder) => folderName(layout, folder)).join(', '));
}

/**
 * The task `ref` names in `folders` (see matchTaskRef for the rules). A path is taken from the
 * current folder and from the vault root. The common cases, a path or `<id>.md`, read one file;
 * anything else reads every task file in the folders.
 */
export async function resolveTask(
  ref: string,
  folders: readonly string[],
  where: { cwd?: string; root?: string } = {},
): Promise<TaskMatch<FoundTask>> {
  const refFiles = await filesOfRef(ref, folders, [
    where.cwd ?? process.cwd(),
    ...(where.root === undefined ? [] : [where.root]),
  ]);
  for (const file of refFiles) {
    const entry = await entryOf(dirname(file), basename(file));
    if (entry !== null) return { kind: 'found', entry, by: 'path' };
  }
  if (!ref.includes('/') && !ref.includes(sep)) {
    for (const folder of folders) {
      const direct = await entryOf(folder, `${ref}.md`);
      if (direct?.id === ref) return { kind: 'found', entry: direct, by: 'id' };
    }
  }
  const entries: FoundTask[] = [];
  for (const folder of folders) {
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names.filter(isTaskFileName).sort()) {
      const entry = await entryOf(folder, name);
      if (entry !== null) entries.push(entry);
    }
  }
  return matchTaskRef(ref, entries, refFiles);
}

/**
 * The task `ref` names among the vault folders a command acts on (`allowed`), for the commands a
 * user types: not there, the other folders are searched only to say where it is instead
 * (`elsewhere` gives the sentence). E_TASK_NOT_FOUND or E_USAGE (ambiguous, or elsewhere) otherwise.
 */
export async function findTaskIn(
  ref: string,
  layout: VaultLayout,
  allowed: readonly VaultFolder[],
  elsewhere: (found: FoundTask, folder: VaultFolder) => string = (found, folder) =>
    `${relative(layout.root, found.file)} is in ${folderName(layout, folder)}`,
): Promise<FoundTask> {
  const where = { root: layout.root };
  const match = await resolveTask(
    ref,
    allowed.map((key) => layout[key]),
    where,
  );
  if (match.kind === 'found') return match.entry;
  if (match.kind === 'ambiguous') throw ambiguous(ref, match.candidates, layout.root);
  const others = TASK_FOLDERS.filter((key) => !allowed.includes(key));
  const other = await resolveTask(
    ref,
    others.map((key) => layout[key]),
    where,
  );
  if (other.kind === 'found') {
    const folder = others.find((key) => layout[key] === other.entry.folder) ?? 'approved';
    throw new WiggumError('E_USAGE', elsewhere(other.entry, folder), { details: { ref, file: other.entry.file } });
  }
  throw notFound(ref, allowed.map((key) => folderName(layout, key)).join(', '));
}

/**
 * The parsed task `ref` names in `folders`, first folder first: for commands that need the whole
 * task (`status ID`, `ralph --status`). A file that does not parse is E_USAGE saying how to see why.
 */
export async function findTask(ref: string, folders: readonly string[], root?: string): Promise<Task> {
  const match = await resolveTask(ref, folders, root === undefined ? {} : { root });
  if (match.kind === 'ambiguous') throw ambiguous(ref, match.candidates, root);
  if (match.kind === 'none') throw notFound(ref, folders.map((folder) => shown(folder, root)).join(', '));
  return parsedTask(match.entry, root);
}

/** The parsed task of a found entry; one that does not parse is E_USAGE saying how to see why. */
export function parsedTask(found: FoundTask, root?: string): Task {
  if (found.task !== null) return found.task;
  const file = shown(found.file, root);
  throw new WiggumError('E_USAGE', `${file} does not parse as a task: wiggum validate "${file}" says why`, {
    details: { file: found.file },
  });
}

/** `Approved/`, with the folder name the config gives. */
export function folderName(layout: VaultLayout, folder: VaultFolder): string {
  return `${basename(layout[folder])}/`;
}

/** E_USAGE listing every task `ref` could mean, for the user to pick one by its id or path. */
export function ambiguous(ref: string, candidates: FoundTask[], root: string | undefined): WiggumError {
  const listed = candidates.map((c) => `${shown(c.file, root)} (id ${c.id})`).join(', ');
  return new WiggumError(
    'E_USAGE',
    `"${ref}" could be any of ${candidates.length} tasks: ${listed}; name one by its exact id or its path`,
    {
      details: { ref, candidates: candidates.map((c) => c.file) },
    },
  );
}

function notFound(ref: string, where: string): WiggumError {
  return new WiggumError(
    'E_TASK_NOT_FOUND',
    `task not found: "${ref}" is no task's id, file name or path in ${where}; wiggum status lists the tasks`,
    { details: { id: ref } },
  );
}

function shown(path: string, root: string | undefined): string {
  return root === undefined ? path : relative(root, path);
}

/** The paths `ref` may stand for, spelled with the folder they are in (through any symbolic link). */
async function filesOfRef(ref: string, folders: readonly string[], bases: readonly string[]): Promise<string[]> {
  if (ref.trim() === '') return [];
  const real = await Promise.all(folders.map((folder) => realpath(folder).catch(() => null)));
  const files: string[] = [];
  for (const base of bases) {
    const path = resolve(base, ref);
    const dir = await realpath(dirname(path)).catch(() => null);
    const index = dir === null ? -1 : real.indexOf(dir);
    const folder = folders[index];
    if (folder !== undefined && !files.includes(join(folder, basename(path)))) files.push(join(folder, basename(path)));
  }
  return files;
}

/** The task file `folder/name`, or null when there is none (or it is not a regular file). */
async function entryOf(folder: string, name: string): Promise<FoundTask | null> {
  if (!isTaskFileName(name)) return null;
  const file = join(folder, name);
  const stats = await lstat(file).catch(() => null);
  if (stats === null || !stats.isFile()) return null;
  const read = await readTaskFile(file).catch(() => null);
  const task = read?.result.ok === true ? read.result.task : null;
  return { file, name, folder, id: task?.id ?? idFromFileName(name), task };
}
