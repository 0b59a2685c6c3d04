import { copyFile, lstat, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { WiggumError } from '../errors.js';
import { git, gitOk } from './git.js';

/**
 * Brings the objects a confined agent wrote into its private objects folder (`privateObjects`) into
 * the repository (`commonDir`), named by their content: they are packed, and git's `index-pack`
 * computes every object's name from its bytes as it indexes the pack. An object the agent wrote
 * under a name its bytes do not have lands under its true name, and an object the repository
 * already has is read from the repository, never from the agent's copy. `work` is a scratch
 * folder of the run. Returns how many objects were brought.
 */
export async function importObjects(commonDir: string, privateObjects: string, work: string): Promise<number> {
  await keepOnlyObjects(privateObjects);
  const repo = { GIT_DIR: commonDir };
  const listed = await gitOk(
    commonDir,
    ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)'],
    "listing the agent's new objects",
    { env: { ...repo, GIT_OBJECT_DIRECTORY: privateObjects } },
  );
  const names = listed.split('\n').filter((line) => line !== '');
  if (names.length === 0) return 0;
  const base = join(work, 'import');
  const packed = await git(commonDir, ['pack-objects', '--quiet', base], {
    env: { ...repo, GIT_ALTERNATE_OBJECT_DIRECTORIES: privateObjects },
    input: `${names.join('\n')}\n`,
  });
  const sum = packed.stdout.trim();
  if (packed.exitCode !== 0 || !/^[0-9a-f]+$/.test(sum))
    throw new WiggumError(
      'E_GIT',
      `could not pack the objects the agent wrote in ${privateObjects} (${packed.stderr.trim() || `exit ${packed.exitCode}`}): its commits stay off the branch; look at that folder, or run the task again`,
      { details: { why: 'import-failed', privateObjects } },
    );
  const pack = `${base}-${sum}.pack`;
  const index = join(work, 'verified.idx');
  // The index pack-objects wrote names objects as they were asked for; index-pack's names come from the bytes.
  await rm(`${base}-${sum}.idx`, { force: true });
  const indexed = await gitOk(commonDir, ['index-pack', '-o', index, pack], "checking the agent's objects", {
    env: repo,
  });
  const name = /([0-9a-f]{40,64})\s*$/.exec(indexed)?.[1] ?? sum;
  const target = join(commonDir, 'objects', 'pack', `pack-${name}`);
  // A pack's name is its content's: another run that made the same objects (the same commit on
  // the same parent, as two tasks doing the same work do) has placed this very pack already.
  if (await exists(`${target}.idx`)) return names.length;
  // The pack first, its index last: git sees a pack once its .idx is there.
  await place(pack, `${target}.pack`);
  await place(index, `${target}.idx`);
  return names.length;
}

/** Scratch copies placed so far by this process: with its pid, each copy's own name. */
let placed = 0;

/**
 * Copies `from` beside `to` and renames it there (the scratch folder may be on another file
 * system). The copy's name is its own, so runs placing the same pack at once never share one (git's
 * gc removes a `tmp_` file a crash left behind).
 */
async function place(from: string, to: string): Promise<void> {
  placed += 1;
  const temporary = join(dirname(to), `tmp_wiggum_${process.pid}_${placed}`);
  await copyFile(from, temporary);
  await rename(temporary, to);
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Leaves in the private objects folder only what holds objects: its two-hex-digit folders and
 * `pack/`. Its `info/` goes (an `alternates` the agent wrote would make the import read objects
 * from anywhere), and so does anything else, links included.
 */
async function keepOnlyObjects(privateObjects: string): Promise<void> {
  for (const entry of await readdir(privateObjects)) {
    const stat = await lstat(join(privateObjects, entry));
    if (stat.isDirectory() && (/^[0-9a-f]{2}$/.test(entry) || entry === 'pack')) continue;
    await rm(join(privateObjects, entry), { recursive: true, force: true });
  }
}
