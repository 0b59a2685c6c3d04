import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';

/**
 * The vault a file belongs to, when no --vault is given: the nearest folder above it that holds a
 * `.wiggum/` folder, else the parent of the folder it sits in when that is named like a vault
 * folder (Approved, Done, Rejected), else the file's own folder.
 */
export async function findVaultRoot(file: string, folderNames: readonly string[] = ['Approved', 'Done', 'Rejected']): Promise<string> {
  const folder = dirname(resolve(file));
  for (let dir = folder; ; dir = dirname(dir)) {
    if (await isDirectory(resolve(dir, '.wiggum'))) return dir;
    if (dirname(dir) === dir) break;
  }
  return folderNames.includes(basename(folder)) ? dirname(folder) : folder;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
