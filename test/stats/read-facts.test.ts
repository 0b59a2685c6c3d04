import { describe, expect, test } from 'vitest';
import { computeStats } from '../../src/stats/figures.js';
import type { VaultStats } from '../../src/stats/figures.js';
import { readVaultFacts } from '../../src/stats/read-facts.js';
import { runCli } from '../helpers/child.js';
import { HOUR, vaultWithEndings } from '../helpers/ended-tasks.js';

describe('the facts of a vault with ended tasks', () => {
  test('read from the task files and their histories, tolerating a bad file and a bad history line', async () => {
    const now = Date.now();
    const vault = await vaultWithEndings(now);
    const { facts, unreadableHistories } = await readVaultFacts(vault.layout, 'fake');
    const stats = computeStats(facts, null, unreadableHistories);
    expect(stats.overall).toMatchObject({
      finished: 3,
      rejected: 3,
      review: 1,
      successRate: 0.5,
      // 10 min, 1 h (old), 2 h.
      timeToDoneMs: { p50: HOUR, p95: 2 * HOUR },
      refusedClaims: 2,
      retries: 2,
      usageLimitWaits: 1,
    });
    // quick: 1,200 tokens from its checkpoint; slow: 1,950 from its history; old: none reported (from its history: null).
    expect(stats.overall.tokensPerFinished).toBeCloseTo((1200 + 1950) / 2, 6);
    expect(stats.overall.iterationsPerFinished).toBeCloseTo(7 / 3, 6);
    expect(stats.harnesses['claude']).toMatchObject({ finished: 2, rejected: 1, review: 1 });
    expect(stats.harnesses['claude']?.successRate).toBeCloseTo(2 / 3, 6);
    expect(stats.harnesses['claude']?.costPerFinishedUsd).toBeCloseTo((0.12 + 0.3) / 2, 6);
    expect(stats.harnesses['fake']).toMatchObject({ finished: 1, rejected: 1, review: 0 });
    expect(stats.unreadable).toEqual({ tasks: 1, histories: 1 });

    const week = computeStats(facts, now - 7 * 24 * HOUR, unreadableHistories);
    expect(week.overall).toMatchObject({ finished: 2, rejected: 3, successRate: 0.4 });
  });

  test('wiggum stats --json and the table, with and without --since; a bad --since is a usage error', async () => {
    const vault = await vaultWithEndings(Date.now());
    const json = await runCli(['stats', '--vault', vault.root, '--json']);
    expect(json.code).toBe(0);
    const all = JSON.parse(json.stdout) as Pick<VaultStats, 'overall' | 'harnesses' | 'unreadable'> & { since: null };
    expect(all.since).toBeNull();
    expect(all.overall).toMatchObject({ finished: 3, rejected: 3, review: 1, successRate: 0.5 });
    expect(Object.keys(all.harnesses)).toEqual(['claude', 'fake']);

    const week = JSON.parse((await runCli(['stats', '--vault', vault.root, '--since', '7d', '--json'])).stdout) as {
      since: string;
      from: string;
      overall: VaultStats['overall'];
    };
    expect(week).toMatchObject({ since: '7d', overall: { finished: 2, rejected: 3 } });
    expect(Date.parse(week.from)).toBeLessThan(Date.now() - 7 * 24 * HOUR + 60_000);

    const text = await runCli(['stats', '--vault', vault.root]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^success rate +50% +66\.7% +50%$/m);
    expect(text.stdout).toMatch(/^finished \(Done\/\) +3 +2 +1$/m);
    expect(text.stdout).toMatch(/^time to Done\/ p95 +2h 00m /m);
    expect(text.stdout).toContain('1 task file could not be read');

    const bad = await runCli(['stats', '--vault', vault.root, '--since', 'a week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a duration');
  });
});
