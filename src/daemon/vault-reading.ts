import { lstat, readdir } from 'node:fs/promises';
import { systemErrorCode } from '../errors.js';
import { readTaskState } from '../task/state.js';
import { TASK_FOLDERS } from '../task/states.js';
import type { TaskFolder } from '../task/states.js';
import { listBlocked } from '../vault/blocked-list.js';
import type { VaultLayout } from '../vault/layout.js';
import { mapLimited, FILES_AT_ONCE } from '../vault/limited.js';
import { linkRefusalOf, linkRefusalText } from '../vault/links.js';
import { flagStemOf, isStopFlagName, isTaskFileName } from '../vault/names.js';
import type { FileReading, FolderListing } from './picture.js';

/*
 * What the picture (picture.ts) is made of, read from the vault: the folders' listings, the heads
 * of the task files no daemon covers, and the questions of the blocked ones.
 */

/** The absolute path of each task folder. */
export function folderPaths(layout: VaultLayout): Record<TaskFolder, string> {
  return {
    approved: layout.approved,
    blocked: layout.blocked,
    review: layout.review,
    done: layout.done,
    rejected: layout.rejected,
  };
}

/** The task files of every folder and the stop flags of Approved/: one readdir each. */
export async function listFolders(layout: VaultLayout): Promise<FolderListing> {
  const paths = folderPaths(layout);
  const listed = await Promise.all(
    TASK_FOLDERS.map(async (folder) => [folder, await listNames(paths[folder])] as const),
  );
  const names = Object.fromEntries(
    listed.map(([folder, all]) => [folder, all.filter(isTaskFileName).sort()]),
  ) as Record<TaskFolder, string[]>;
  const approvedAll = listed.find(([folder]) => folder === 'approved')?.[1] ?? [];
  return { names, stopFlags: new Set(approvedAll.filter(isStopFlagName).map(flagStemOf)) };
}

/** A folder's entries; a missing folder has none. */
async function listNames(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT' || systemErrorCode(error) === 'ENOTDIR') return [];
    throw error;
  }
}

/** The heads of `files` (id, checkpoint status and count), or that one does not parse. */
export async function readHeads(files: readonly string[]): Promise<Map<string, FileReading>> {
  const readings = new Map<string, FileReading>();
  await mapLimited(files, FILES_AT_ONCE, async (file) => {
    readings.set(file, await readHead(file));
  });
  return readings;
}

/** One task file's head, for the picture. */
export async function readHead(file: string): Promise<FileReading> {
  const stats = await lstat(file).catch(() => null);
  if (stats === null) return { kind: 'unread' };
  const refusal = linkRefusalOf(stats);
  if (refusal !== null) return { kind: 'refused', why: linkRefusalText(refusal) };
  const state = await readTaskState(file).catch(() => null);
  if (state === null) return { kind: 'unparsable' };
  return {
    kind: 'read',
    id: state.id,
    status: state.loop?.status,
    iterations: state.loop?.iteration ?? 0,
    ...(state.loop === undefined ? {} : { maxIterations: state.loop.max_iterations }),
    ...(state.harness === undefined ? {} : { harness: state.harness }),
  };
}

export async function blockedQuestions(layout: VaultLayout): Promise<Map<string, string>> {
  return new Map((await listBlocked(layout)).map((task) => [task.name, task.question]));
}
