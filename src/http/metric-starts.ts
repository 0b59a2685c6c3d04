import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WiggumError, systemErrorCode } from '../errors.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { VaultLayout } from '../vault/layout.js';

/** `.wiggum/daemon-starts`: how many times a daemon with metrics has started on this vault. */
export function startsFile(layout: Pick<VaultLayout, 'state'>): string {
  return join(layout.state, 'daemon-starts');
}

/**
 * Pure: the count a starts file holds. Anything but a whole number (a file emptied or edited by
 * hand) counts as 0: the counter starts over, which Prometheus reads as a reset, rather than keep
 * the daemon's metrics from starting over a file that only counts.
 */
export function parseStarts(text: string): number {
  const trimmed = text.trim();
  return /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : 0;
}

/**
 * Counts one more start of the daemon in `.wiggum/daemon-starts` (an atomic replace: a crash leaves
 * the old count or the new one) and returns the new count. Called once per daemon, under its
 * vault lock, so no other process counts at the same time.
 */
export async function countDaemonStart(layout: Pick<VaultLayout, 'state'>): Promise<number> {
  const file = startsFile(layout);
  let before = 0;
  try {
    before = parseStarts(await readFile(file, 'utf8'));
  } catch (error) {
    if (systemErrorCode(error) !== 'ENOENT')
      throw new WiggumError(
        'E_WRITE',
        `could not read ${file} (${systemErrorCode(error) ?? 'error'}), the count of daemon starts: give the wiggum user access to it, or remove it to count from 0`,
        { cause: error, details: { path: file } },
      );
  }
  const starts = before + 1;
  await writeFileAtomic(file, `${starts}\n`);
  return starts;
}
