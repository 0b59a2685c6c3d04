import { systemProcessHost } from './process-host.js';
import type { GroupHost } from './process-host.js';

/** How often dying processes (a group, a run's strays) are looked at. Short: this is how long a finished run waits for nothing. */
export const POLL_MS = 20;
/**
 * How long to wait for a group (or a run's strays) to be gone after SIGKILL. SIGKILL cannot be ignored, but a process
 * stuck in uninterruptible I/O dies only when the I/O returns; past this we give up waiting.
 */
export const KILL_CONFIRM_MS = 5_000;

/**
 * Stops every process of the group `pgid`: SIGTERM, up to `graceMs` to exit, then SIGKILL, and waits
 * until the group is empty. Returns whether anything was alive to stop. Used for a run's own stops,
 * for what a harness leaves behind, and for a harness left running by a wiggum that crashed (its pid
 * was recorded at spawn). Signals, looks at the group and waits go through `host`.
 */
export async function killProcessGroup(
  pgid: number,
  graceMs: number,
  host: GroupHost = systemProcessHost,
): Promise<boolean> {
  if (!host.isGroupAlive(pgid)) return false;
  host.signalGroup(pgid, 'SIGTERM');
  if (!(await waitForGroupExit(pgid, graceMs, host))) {
    host.signalGroup(pgid, 'SIGKILL');
    await waitForGroupExit(pgid, KILL_CONFIRM_MS, host);
  }
  return true;
}

async function waitForGroupExit(pgid: number, timeoutMs: number, host: GroupHost): Promise<boolean> {
  const deadline = host.monotonicNow() + timeoutMs;
  while (host.isGroupAlive(pgid)) {
    const left = deadline - host.monotonicNow();
    if (left <= 0) return false;
    await host.clock.sleep(Math.min(POLL_MS, left));
  }
  return true;
}
