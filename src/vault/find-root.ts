import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { WiggumError, systemErrorCode } from '../errors.js';

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

/**
 * Fails (E_USAGE, exit 2) unless `root` is a vault: a folder holding `Approved/` or `.wiggum/`.
 * Commands check this before they load a config or write anything, so a typo in --vault, or a
 * command run in the wrong folder, creates nothing (before, `start` made the folders and watched an
 * empty vault forever, and `context add` made a session folder there).
 */
export async function requireVault(root: string): Promise<void> {
  const where = resolve(root);
  const kind = await statKind(where);
  if (kind === 'missing') throw notAVault(`${where} does not exist`, where);
  if (kind === 'other') throw notAVault(`${where} is not a folder`, where);
  if ((await isDirectory(resolve(where, 'Approved'))) || (await isDirectory(resolve(where, '.wiggum')))) return;
  throw notAVault(`${where} is not a wiggum vault (it has neither Approved/ nor .wiggum/)`, where);
}

function notAVault(what: string, where: string): WiggumError {
  return new WiggumError('E_USAGE', `${what}: wiggum init DIR creates a vault, or pass --vault DIR of an existing one`, { details: { path: where } });
}

async function statKind(path: string): Promise<'folder' | 'other' | 'missing'> {
  try {
    return (await stat(path)).isDirectory() ? 'folder' : 'other';
  } catch (error) {
    const code = systemErrorCode(error);
    // ENOTDIR: a file stands where a folder of the path should be (`afile/vault`).
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw new WiggumError('E_USAGE', `cannot read ${path} (${code ?? String(error)}): check the path and its permissions`, { cause: error, details: { path } });
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
