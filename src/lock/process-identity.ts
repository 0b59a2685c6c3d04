import { readFileSync } from 'node:fs';

/**
 * Field 22 of /proc/<pid>/stat (the process start time, in clock ticks since boot), or null when
 * the process is gone or a zombie. With the pid it identifies a process: a reused pid starts later.
 */
export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in field 2 may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return null;
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the process that wrote an owner record still runs: same host, the pid exists and (when
 * recorded) started at the recorded time. A pid on another host cannot be checked, so it counts
 * as alive: taking over a lock shared over a network folder is for a person to decide.
 */
export function isProcessAlive(
  owner: { pid: number; startTicks: string | null; host: string },
  thisHost: string,
): boolean {
  if (owner.host !== thisHost) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'ESRCH') return false;
  }
  const ticks = processStartTicks(owner.pid);
  if (ticks === null) return false;
  return owner.startTicks === null || ticks === owner.startTicks;
}
