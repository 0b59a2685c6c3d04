import { link, lstat, mkdir, rename, stat, unlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { WiggumError, systemErrorCode } from '../errors.js';
import { syncDirectory, writeFailureHint } from '../store/atomic-write.js';

/**
 * Moves a finished task into Done/ or Rejected/ without ever overwriting a file there: a clash gets
 * a suffix (`name-2.md`, `name-3.md`, …). The move is a hard link then an unlink, so a crash leaves
 * either the source alone or both names on the same file; the next call sees the second case (same
 * inode) and only removes the source. Returns the final path.
 *
 * A move onto the file itself is a no-op that returns the source: the folder it is already in (by
 * any path to it), or a "twin" that is in fact the same name. Without this guard the twin rule
 * above took the file for its own crash-left copy and unlinked its only name.
 */
export async function moveWithoutClobber(source: string, destinationDir: string): Promise<string> {
  await mkdir(destinationDir, { recursive: true });
  const sourceStat = await stat(source);
  if (sameEntry(await stat(dirname(source)), await stat(destinationDir))) return source;
  const stem = basename(source, extname(source));
  const extension = extname(source);
  for (let n = 1; n < 10_000; n += 1) {
    const candidate = join(destinationDir, n === 1 ? `${stem}${extension}` : `${stem}-${n}${extension}`);
    const existing = await lstat(candidate).catch(() => null);
    if (existing !== null) {
      if (sameEntry(existing, sourceStat)) {
        // One name only: the candidate is the source itself, reached by another path. Never unlink it.
        if ((await stat(source)).nlink < 2) return source;
        // A crash between link and unlink last time: finish the move.
        await unlink(source);
        await syncDirectory(dirname(source));
        return candidate;
      }
      continue;
    }
    try {
      await link(source, candidate);
    } catch (error) {
      const code = systemErrorCode(error);
      if (code === 'EEXIST') continue;
      if (code === 'EXDEV' || code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
        // No hard links here (another file system, some FUSE mounts): a checked rename instead.
        await rename(source, candidate);
        await syncDirectory(destinationDir);
        await syncDirectory(dirname(source));
        return candidate;
      }
      throw new WiggumError(
        'E_WRITE',
        `could not move ${source} to ${destinationDir} (${code ?? String(error)}): ${writeFailureHint(code)}`,
        { cause: error, details: { path: destinationDir, errno: code } },
      );
    }
    await syncDirectory(destinationDir);
    await unlink(source);
    await syncDirectory(dirname(source));
    return candidate;
  }
  throw new WiggumError(
    'E_WRITE',
    `${destinationDir} already holds 10,000 files named like ${basename(source)}: clean it up`,
  );
}

/** Whether two stats are of one file (or folder): same device, same inode. */
function sameEntry(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}
