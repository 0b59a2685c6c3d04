import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { WiggumError, systemErrorCode } from '../errors.js';

/**
 * The vault a file belongs to, when no --vault is given: the nearest folder above it that holds a
 * `.wiggum/` folder, else the parent of the folder it sits in when that is named like a vault
 * folder (Approved, Done, Rejected), else the file's own folder.
 */
export async function findVaultRoot(
  file: string,
  folderNames: readonly string[] = ['Approved', 'Done', 'Rejected'],
): Promise<string> {
  const folder = dirname(resolve(file));
  for (let dir = folder; ; dir = dirname(dir)) {
    if (await isDirectory(resolve(dir, '.wiggum'))) return dir;
    if (dirname(dir) === dir) break;
  }
  return folderNames.includes(basename(folder)) ? dirname(folder) : folder;
}

/**
 * The vault whose task `file` is, for `wiggum run FILE` without --vault: the nearest folder above it
 * that holds its Approved/ folder. A `.wiggum/` alone does not make one: `wiggum ralph` leaves one
 * in a repository, and a home folder may hold one; taken for vaults, they captured every later run
 * below them and grew Done/ folders. `approvedOf(dir)` names the Approved/ folder that a `.wiggum/`
 * folder's config gives (its folders.approved), for vaults that rename it. Null when no vault holds
 * the file.
 */
export async function findTaskVault(
  file: string,
  approvedOf: (root: string) => Promise<string>,
): Promise<string | null> {
  for (let dir = dirname(resolve(file)); ; dir = dirname(dir)) {
    if (await isDirectory(join(dir, 'Approved'))) return dir;
    if (await isDirectory(join(dir, '.wiggum'))) {
      const approved = resolve(dir, await approvedOf(dir));
      if (approved !== join(dir, 'Approved') && (await isDirectory(approved))) return dir;
    }
    if (dirname(dir) === dir) return null;
  }
}

/** Whether `path` lies inside `root` (or is it), compared through symbolic links where they exist. */
export async function isInside(path: string, root: string): Promise<boolean> {
  const real = async (p: string): Promise<string> => {
    const dir = await realpath(dirname(resolve(p))).catch(() => dirname(resolve(p)));
    return join(dir, basename(resolve(p)));
  };
  const rel = relative(await real(root), await real(path));
  return !isAbsolute(rel) && rel.split(sep)[0] !== '..';
}

/** `wiggum run` of a file that no vault holds: nothing is created, and the way to make one is said. */
export function notInAVault(file: string): WiggumError {
  return new WiggumError(
    'E_USAGE',
    `${file} is not inside a vault (no folder above it holds an Approved/ folder), so wiggum run leaves it alone and creates nothing: wiggum init DIR makes a vault; put the task in DIR/Approved/ and run it there (or give --vault DIR)`,
    { details: { file } },
  );
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
  return new WiggumError(
    'E_USAGE',
    `${what}: wiggum init DIR creates a vault, or pass --vault DIR of an existing one`,
    { details: { path: where } },
  );
}

async function statKind(path: string): Promise<'folder' | 'other' | 'missing'> {
  try {
    return (await stat(path)).isDirectory() ? 'folder' : 'other';
  } catch (error) {
    const code = systemErrorCode(error);
    // ENOTDIR: a file stands where a folder of the path should be (`afile/vault`).
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw new WiggumError(
      'E_USAGE',
      `cannot read ${path} (${code ?? String(error)}): check the path and its permissions`,
      { cause: error, details: { path } },
    );
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
