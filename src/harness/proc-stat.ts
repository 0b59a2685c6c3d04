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
