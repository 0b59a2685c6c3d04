import { describe, expect, test } from 'vitest';
import { runTask } from '../../src/loop/run-task.js';
import type { Clock } from '../../src/time/clock.js';
import { parseTask } from '../../src/task/parse.js';
import { readFileSync } from 'node:fs';
import { captureLogger } from '../helpers/capture-logger.js';
import { historyOf } from '../helpers/history.js';
import { makeVault } from '../helpers/vault.js';
import { vaultRunHost } from '../../src/vault/run-host.js';

/**
 * A clock whose wall time jumps by `jumpMs` during every sleep (NTP stepping the clock, a laptop
 * waking up), forwards or backwards; sleeps themselves return at once.
 */
class JumpingClock implements Clock {
  private time = Date.now();
  constructor(private readonly jumpMs: number) {}
  now(): number {
    return this.time;
  }
  sleep(ms: number): Promise<void> {
    this.time += ms + this.jumpMs;
    return Promise.resolve();
  }
}

describe('the wall clock jumping during backoff', () => {
  test.each([
    ['forwards by 2 hours', 2 * 3_600_000],
    ['backwards by 2 hours', -2 * 3_600_000],
  ])('%s: the retries still happen, and the total timeout counts only the backoff itself', async (_name, jumpMs) => {
    // Two transient failures (exit 75), then success; backoff 10 then 20 ms.
    const vault = await makeVault({
      fake: { FAKE_STATE_FILE: 'fails', FAKE_FAIL_TIMES: '2', FAKE_EXIT_CODE: '75', FAKE_COMPLETE_AFTER: '1' },
    });
    const file = vault.task('jumpy', '---\ntitle: Jumpy\n---\n- [ ] US-001 One\n');
    const result = await runTask(
      { file, stream: null, signal: new AbortController().signal },
      {
        config: vault.config,
        host: vaultRunHost(vault.layout),
        clock: new JumpingClock(jumpMs),
        random: () => 0.5,
        logger: captureLogger().logger,
        env: process.env,
      },
    );
    expect(result).toMatchObject({ status: 'done', iterations: 1 });
    expect(historyOf(vault.layout.sessions, 'jumpy').map((r) => [r.attempt, r.outcome])).toEqual([
      [0, 'transient'],
      [1, 'transient'],
      [2, 'complete'],
    ]);
    const parsed = parseTask(result.file, readFileSync(result.file, 'utf8'));
    if (!parsed.ok) throw new Error('the Done file does not parse');
    const activeMs = (parsed.task.frontmatter.persistence_loop?.checkpoint?.state_data as { active_ms: number })
      .active_ms;
    // The three runs plus 10 + 20 ms of backoff: not two hours more, and never less than the runs.
    expect(activeMs).toBeGreaterThanOrEqual(30);
    expect(activeMs).toBeLessThan(60_000);
  });
});

/** Real time plus `jumpMs` once the loop has read the clock a few times: a step in the middle of a run. */
class SteppedClock implements Clock {
  private calls = 0;
  constructor(private readonly jumpMs: number) {}
  now(): number {
    this.calls += 1;
    return Date.now() + (this.calls > 3 ? this.jumpMs : 0);
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true });
    });
  }
}

describe('the wall clock jumping while a harness runs into its timeout', () => {
  test.each([
    ['forwards by 2 hours', 2 * 3_600_000],
    ['backwards by 2 hours', -2 * 3_600_000],
  ])(
    '%s: the per-iteration timeout still fires after its own length, and durations are what they were',
    async (_name, jumpMs) => {
      // Run 1 hangs until the 2 s per-iteration timeout stops it (a transient failure); run 2 completes.
      const vault = await makeVault({
        fake: { FAKE_HANG_ON_RUN: '1', FAKE_COMPLETE_AFTER: '1' },
        config: { persistence_loop: { timeout: { per_step: '2s' } } },
      });
      const file = vault.task('stepped', '---\ntitle: Stepped\n---\n- [ ] US-001 One\n');
      const started = performance.now();
      const result = await runTask(
        { file, stream: null, signal: new AbortController().signal },
        {
          config: vault.config,
          host: vaultRunHost(vault.layout),
          clock: new SteppedClock(jumpMs),
          random: () => 0.5,
          logger: captureLogger().logger,
          env: process.env,
        },
      );
      const history = historyOf(vault.layout.sessions, 'stepped');
      expect(result).toMatchObject({ status: 'done', iterations: 1 });
      expect(history.map((r) => [r.attempt, r.outcome])).toEqual([
        [0, 'transient'],
        [1, 'complete'],
      ]);
      // The timed-out run lasted its timeout (measured on the monotonic clock), not two hours or less than nothing.
      expect(history[0]!.durationMs).toBeGreaterThanOrEqual(1_900);
      expect(history[0]!.durationMs).toBeLessThan(performance.now() - started);
    },
  );
});
