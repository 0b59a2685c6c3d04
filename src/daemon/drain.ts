import type { Logger } from '../log/logger.js';
import type { Clock } from '../time/clock.js';
import { elapsed } from './dashboard.js';
import type { TaskQueue } from './task-queue.js';

/**
 * After the drain grace ran out and the agents were killed, how long their loops get to record the
 * iteration and checkpoint before the daemon exits anyway: a write or two, not a second grace.
 */
const DRAIN_KILL_MARGIN_MS = 1_500;

/**
 * The task queue's release. Nothing new starts; every task is stopped and checkpointed as
 * interrupted, within the drain grace. Agents get SIGTERM and `harness.stop_grace`, but never past
 * `daemon.drain_grace`: when it runs out the ones still running are killed (SIGKILL, `killAgents`),
 * their loops record the iteration and checkpoint, and the daemon goes on stopping, whatever is
 * still running after a short margin.
 */
export async function drainQueue(
  queue: TaskQueue,
  graceMs: number,
  killAgents: AbortController,
  clock: Clock,
  logger: Logger,
): Promise<void> {
  queue.pause();
  queue.stopAll('interrupted');
  if (await idleWithin(queue, graceMs, clock)) return;
  const left = queue.running().map((job) => job.id);
  logger.warn(
    { event: 'daemon.drain-grace-over', graceMs, tasks: left },
    `the drain grace (${elapsed(graceMs)}) ran out: killing the agents still running (SIGKILL)`,
  );
  killAgents.abort();
  if (await idleWithin(queue, DRAIN_KILL_MARGIN_MS, clock)) return;
  logger.error(
    { event: 'daemon.drain-incomplete', graceMs, tasks: queue.running().map((job) => job.id) },
    'some tasks did not stop after their agents were killed; exiting anyway (they resume from their last checkpoint)',
  );
}

/** Whether the queue is idle within `ms` (on the injected clock). */
async function idleWithin(queue: TaskQueue, ms: number, clock: Clock): Promise<boolean> {
  const timeUp = new AbortController();
  const idle = await Promise.race([
    queue.idle().then(() => true),
    clock.sleep(ms, timeUp.signal).then(
      () => false,
      () => true, // unreachable: aborted only once the race is decided
    ),
  ]);
  timeUp.abort();
  return idle;
}

/**
 * The daemon's exit code once every part was released: 0, or 1 (the CLI's EXIT.failed) when a part
 * could not be released, so that systemd and scripts see a failed shutdown.
 */
export function stoppedCode(releaseFailures: readonly string[], logger: Logger): number {
  if (releaseFailures.length === 0) {
    logger.info({ event: 'daemon.stopped' }, 'stopped');
    return 0;
  }
  logger.error(
    { event: 'daemon.stopped-failed', parts: releaseFailures },
    `stopped, but could not release ${releaseFailures.join(', ')}; exiting with code 1`,
  );
  return 1;
}
