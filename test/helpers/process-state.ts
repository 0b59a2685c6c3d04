import { readFileSync } from 'node:fs';

/**
 * Whether `pid` is still running. A zombie counts as gone: an orphan killed after its parent
 * exited is reparented to pid 1, which in some containers never reaps it, so kill(pid, 0) alone
 * would still succeed for a process that has ended.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}
