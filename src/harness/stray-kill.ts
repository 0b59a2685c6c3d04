import { KILL_CONFIRM_MS, POLL_MS } from './process-group.js';
import type { ProcessHost } from './process-host.js';
import type { MarkedProcess, RunPids } from './process-tree.js';

/** What killing a run's strays needs: the process table and the clock its waits sleep on. */
export type StrayHost = Pick<ProcessHost, 'processTable' | 'clock' | 'monotonicNow'>;

/**
 * Stops every process still carrying the run's `marker` once the run is over: SIGTERM, up to
 * `graceMs` to exit, then SIGKILL, and waits until none is left (or `KILL_CONFIRM_MS` more have
 * passed). Meant for after the run's process group is gone, when what is left is what escaped it:
 * background jobs started in a session of their own, which a group signal never reaches.
 *
 * Each look at the table may find processes the strays started meanwhile; they get the signal of
 * the phase they are found in. Signals go by pid right after the look that found the process, so
 * a pid reused in between (microseconds) is the only way to hit a process that is not ours.
 * `firstLook`: the caller's own look at the table (`findMarked(marker)`) taken just now, used
 * instead of a new one. `run`: the run's leader and pid counters at its spawn, so that a look reads
 * only the processes started since. Returns how many distinct processes were signalled.
 */
export async function killStrays(
  marker: string,
  graceMs: number,
  host: StrayHost,
  firstLook?: MarkedProcess[] | null,
  run: RunPids | null = null,
): Promise<number> {
  const signalled = new Set<string>();
  const terminated = new Set<string>();
  let look = firstLook;
  /** Signals what is left (SIGTERM once per process, SIGKILL on every look); returns whether anything was. */
  const sweep = (signal: 'SIGTERM' | 'SIGKILL'): boolean => {
    const left = (look !== undefined ? look : host.processTable.findMarked(marker, run)) ?? [];
    look = undefined;
    for (const stray of left) {
      const identity = `${stray.pid}@${stray.startTicks}`;
      signalled.add(identity);
      if (signal === 'SIGTERM') {
        if (terminated.has(identity)) continue;
        terminated.add(identity);
      }
      host.processTable.signal(stray.pid, signal);
    }
    return left.length > 0;
  };
  /** Sweeps at once, then every `POLL_MS`, until nothing is left (true) or `timeoutMs` is over (false). */
  const sweepUntilGone = async (signal: 'SIGTERM' | 'SIGKILL', timeoutMs: number): Promise<boolean> => {
    const deadline = host.monotonicNow() + timeoutMs;
    while (sweep(signal)) {
      const left = deadline - host.monotonicNow();
      if (left <= 0) return false;
      await host.clock.sleep(Math.min(POLL_MS, left));
    }
    return true;
  };

  if (!(await sweepUntilGone('SIGTERM', graceMs))) await sweepUntilGone('SIGKILL', KILL_CONFIRM_MS);
  return signalled.size;
}
