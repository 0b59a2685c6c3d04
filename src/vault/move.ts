import { link, lstat, mkdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { WiggumError, systemErrorCode } from '../errors.js';
import { syncDirectory, writeFailureHint } from '../store/atomic-write.js';

/**
 * Moves a finished task into Done/ or Rejected/ without ever overwriting a file there: a clash gets
 * a suffix (`name-2.md`, `name-3.md`, …). The move is a hard link then an unlink, so a crash leaves
 * either the source alone or both names on the same file; the next call sees the second case (same
 * inode) and only removes the source. Returns the final path.
 */
export async function moveWithoutClobber(source: string, destinationDir: string): Promise<string> {
  await mkdir(destinationDir, { recursive: true });
  const sourceStat = await stat(source);
  const stem = basename(source, extname(source));
  const extension = extname(source);
  for (let n = 1; n < 10_000; n += 1) {
    const candidate = join(destinationDir, n === 1 ? `${stem}${extension}` : `${stem}-${n}${extension}`);
    const existing = await lstat(candidate).catch(() => null);
    if (existing !== null) {
      if (existing.ino === sourceStat.ino && existing.dev === sourceStat.dev) {
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
      throw new WiggumError('E_WRITE', `could not move ${source} to ${destinationDir} (${code ?? String(error)}): ${writeFailureHint(code)}`, { cause: error, details: { path: destinationDir, errno: code } });
    }
    await syncDirectory(destinationDir);
    await unlink(source);
    await syncDirectory(dirname(source));
    return candidate;
  }
  throw new WiggumError('E_WRITE', `${destinationDir} already holds 10,000 files named like ${basename(source)}: clean it up`);
}
