import { readFileSync, readdirSync } from 'node:fs';

/**
 * The host pids of processes that recorded themselves as `recorded`: each is found by its marker
 * in its environment and the last pid of its NSpid line (the pid it sees). A confined agent runs
 * under its run's host pid inside its PID namespace (sandbox/host-pid.ts), so that pid is also the
 * sandbox's own process on the host, which carries the marker too: the one inside a namespace wins.
 */
export function hostPidsOf(recorded: number[], marker: string): number[] {
  const inside = new Map<number, number>();
  const outside = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(marker)) continue;
      const nspid = (/^NSpid:\s+(.+)$/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1] ?? '')
        .trim()
        .split(/\s+/)
        .map(Number);
      const seen = nspid.at(-1);
      if (seen !== undefined && recorded.includes(seen)) (nspid.length > 1 ? inside : outside).set(seen, Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  const found = recorded.flatMap((pid) => {
    const host = inside.get(pid) ?? outside.get(pid);
    return host === undefined ? [] : [host];
  });
  if (found.length !== recorded.length)
    throw new Error(`found ${found.length} of the agent's ${recorded.length} processes (${recorded.join(', ')})`);
  return found;
}
