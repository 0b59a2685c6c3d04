import { describe, expect, test } from 'vitest';
import { startDaemon } from '../../src/daemon/daemon.js';
import type { RunningDaemon } from '../../src/daemon/surface.js';
import type { DaemonEvents } from '../../src/daemon/events.js';
import { Scheduler } from '../../src/daemon/scheduler.js';
import { WiggumError } from '../../src/errors.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';

const TASK = '---\ntitle: One story\n---\n- [ ] US-001 One\n';
const FAILED_RETRY_MS = 30_000;

/**
 * A daemon on a manual clock whose every run fails as a full disk would (E_IO), before the loop
 * starts: what follows is the daemon's own settle → `retryLater`, which is all these tests look at.
 * The queue is the real one; only the run it is given fails.
 */
async function failingDaemon(): Promise<{
  vault: TestVault;
  clock: ManualClock;
  daemon: RunningDaemon;
  attemptsAtMs: number[];
}> {
  const vault = await makeVault({ config: { daemon: { failed_retry: `${FAILED_RETRY_MS}ms` } } });
  vault.task('unlucky', TASK);
  const clock = new ManualClock();
  const attemptsAtMs: number[] = [];
  const { logger } = captureLogger();
  const daemon = await startDaemon({
    vault: vault.root,
    config: { vault: vault.root },
    clock,
    random: () => 0.5,
    env: process.env,
    createLogger: () => logger,
    createQueue: (concurrency, _run, settled) =>
      new Scheduler(
        concurrency,
        () => {
          attemptsAtMs.push(clock.now());
          return Promise.reject(new WiggumError('E_WRITE', 'no space left on the device'));
        },
        settled,
      ),
  });
  return { vault, clock, daemon, attemptsAtMs };
}

/**
 * Moves the manual clock on in `stepMs` steps until `event` has happened: the watcher's settle
 * and the retry both sleep on the clock, while the scans between them are real I/O that a step's
 * own settling lets finish.
 */
async function advanceUntil<K extends keyof DaemonEvents>(
  clock: ManualClock,
  daemon: RunningDaemon,
  name: K,
  match: (event: DaemonEvents[K]) => boolean,
  stepMs: number,
): Promise<DaemonEvents[K]> {
  let seen: DaemonEvents[K] | null = null;
  const next = daemon.events.next(name, match).then((event) => (seen = event));
  for (let step = 0; seen === null; step += 1) {
    if (step === 100_000) throw new Error(`no ${String(name)} event after ${step} steps of the manual clock`);
    await clock.advance(stepMs);
  }
  return next;
}

const failedSettle = (event: DaemonEvents['settled']): boolean => event.taskId === 'unlucky' && event.error !== null;

describe('daemon.failed_retry on the manual clock: a run that failed is tried again later, never in real time', () => {
  test('the task is offered again once failed_retry has passed on the clock, not before', async () => {
    const { vault, clock, daemon, attemptsAtMs } = await failingDaemon();
    const settleMs = vault.config.daemon.settleMs;
    await advanceUntil(clock, daemon, 'settled', failedSettle, settleMs);
    expect(attemptsAtMs).toHaveLength(1);
    const failedAtMs = clock.now();

    // Just short of failed_retry: the clock has moved, the task has not been tried again.
    for (let movedMs = 0; movedMs + settleMs < FAILED_RETRY_MS; movedMs += settleMs) await clock.advance(settleMs);
    expect(clock.now() - failedAtMs).toBeLessThan(FAILED_RETRY_MS);
    expect(attemptsAtMs).toHaveLength(1);

    await advanceUntil(clock, daemon, 'settled', failedSettle, settleMs);
    expect(attemptsAtMs).toHaveLength(2);
    expect(attemptsAtMs[1]! - attemptsAtMs[0]!).toBeGreaterThanOrEqual(FAILED_RETRY_MS);

    daemon.drain('the test is over');
    expect(await daemon.stopped).toBe(0);
  });

  test('a drain cancels the pending retry: no timer is left on the clock, and nothing runs again', async () => {
    const { vault, clock, daemon, attemptsAtMs } = await failingDaemon();
    await advanceUntil(clock, daemon, 'settled', failedSettle, vault.config.daemon.settleMs);
    expect(clock.pending).toBeGreaterThan(0); // the retry (and the watcher's rescan) wait on the clock

    daemon.drain('the test is over');
    expect(await daemon.stopped).toBe(0);
    // Every sleep the daemon started was cancelled by its release: the retry among them.
    expect(clock.pending).toBe(0);
    await clock.advance(FAILED_RETRY_MS * 2);
    expect(attemptsAtMs).toHaveLength(1);
  });
});
