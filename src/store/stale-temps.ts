import { readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** The name `tempPathFor` gives a temp file: `.<name>.<pid>.<8 hex>.tmp`. */
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * Removes the temp files that writers killed mid-write (kill -9, a power loss) left in `dir`: an
 * atomic write's temp file whose writer pid no longer runs. A temp file of a live process is left
 * alone, even if that pid was reused: at worst it waits for a later sweep. Never throws; returns
 * the names removed, for the log.
 */
export function sweepStaleTemps(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (match?.[1] === undefined || isRunning(Number(match[1]))) continue;
    try {
      unlinkSync(join(dir, name));
      removed.push(name);
    } catch {
      // gone already, or not ours to remove: nothing to clean
    }
  }
  return removed;
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
