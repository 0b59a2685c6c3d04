import { readdir } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { systemErrorCode } from '../errors.js';
import { idFromFileName } from '../task/id.js';
import { betterPlace } from '../task/order.js';
import type { Place } from '../task/order.js';
import type { VaultLayout } from './layout.js';
import { isTaskFileName } from './names.js';

/**
 * Where every task id of the vault is, for `depends_on:`: Done/ and Rejected/ by name, and every
 * other folder at the top of the vault (Approved/, Drafts/, the folders of tasks waiting for a
 * person) as a task still to finish. Ids come from file names (the id a task without an `id:` key
 * has); `extra` adds the ids read from the files of Approved/. One readdir per folder, no file read.
 */
export async function taskPlaces(layout: VaultLayout, extra: Iterable<string>): Promise<Map<string, Place>> {
  const folders = new Map<string, Place>([
    [layout.done, 'done'],
    [layout.rejected, 'rejected'],
    [layout.approved, 'pending'],
  ]);
  for (const entry of await list(layout.root))
    if (entry.isDirectory() && !entry.name.startsWith('.')) {
      const path = join(layout.root, entry.name);
      if (!folders.has(path)) folders.set(path, 'pending');
    }
  const places = new Map<string, Place>();
  for (const id of extra) places.set(id, betterPlace(places.get(id), 'pending'));
  await Promise.all(
    [...folders].map(async ([folder, place]) => {
      for (const entry of await list(folder))
        if (!entry.isDirectory() && isTaskFileName(entry.name)) {
          const id = idFromFileName(entry.name);
          places.set(id, betterPlace(places.get(id), place));
        }
    }),
  );
  return places;
}

async function list(path: string): Promise<Dirent[]> {
  try {
    return await readdir(path, { withFileTypes: true });
  } catch (error) {
    // A folder that is not there (yet), or not a folder: it holds no task.
    if (systemErrorCode(error) === 'ENOENT' || systemErrorCode(error) === 'ENOTDIR') return [];
    throw error;
  }
}
