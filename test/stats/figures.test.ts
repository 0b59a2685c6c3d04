import { describe, expect, test } from 'vitest';
import { computeStats, figuresOf, inWindow, percentile } from '../../src/stats/figures.js';
import type { TaskFacts } from '../../src/stats/figures.js';

const MIN = 60_000;
const T0 = 1_800_000_000_000;

/** A task in Done/ on claude that took `minutes`, 2 iterations, 1,000 tokens and $0.10. */
const task = (change: Partial<TaskFacts> = {}, minutes = 10): TaskFacts => ({
  ending: 'done',
  readable: true,
  harness: 'claude',
  startedAtMs: T0,
  endedAtMs: T0 + minutes * MIN,
  iterations: 2,
  tokens: 1000,
  costUsd: 0.1,
  refusedClaims: 0,
  retries: 0,
  usageLimitWaits: 0,
  ...change,
});

describe('percentile (nearest rank)', () => {
  test.each<[number[], number, number | null]>([
    [[], 50, null],
    [[7], 50, 7],
    [[7], 95, 7],
    [[1, 2], 50, 1],
    [[1, 2, 3, 4], 50, 2],
    [[1, 2, 3, 4], 95, 4],
    [Array.from({ length: 100 }, (_, i) => i + 1), 50, 50],
    [Array.from({ length: 100 }, (_, i) => i + 1), 95, 95],
    [Array.from({ length: 20 }, (_, i) => i + 1), 95, 19],
  ])('%j at p%i is %j', (sorted, p, expected) => {
    expect(percentile(sorted, p)).toBe(expected);
  });
});

describe('figuresOf', () => {
  test.each<[string, TaskFacts[], Partial<ReturnType<typeof figuresOf>>]>([
    [
      'nothing ended: counts 0, rates and means unknown',
      [],
      {
        finished: 0,
        rejected: 0,
        review: 0,
        successRate: null,
        timeToDoneMs: { p50: null, p95: null },
        iterationsPerFinished: null,
        costPerFinishedUsd: null,
        totalCostUsd: null,
      },
    ],
    [
      '3 done, 1 rejected: 75 %, per-finished means over Done/ only',
      [
        task({}, 10),
        task({ iterations: 4, tokens: 3000, costUsd: 0.3 }, 20),
        task({}, 30),
        task({ ending: 'rejected', iterations: 9, tokens: 9000, costUsd: 0.9 }),
      ],
      {
        finished: 3,
        rejected: 1,
        successRate: 0.75,
        timeToDoneMs: { p50: 20 * MIN, p95: 30 * MIN },
        iterationsPerFinished: 8 / 3,
        tokensPerFinished: 5000 / 3,
        totalTokens: 14_000,
      },
    ],
    [
      'Review/ counted apart: in no rate and no per-finished figure',
      [task(), task({ ending: 'review', iterations: 100, tokens: 1, costUsd: 5 }, 999)],
      {
        finished: 1,
        review: 1,
        successRate: 1,
        iterationsPerFinished: 2,
        timeToDoneMs: { p50: 10 * MIN, p95: 10 * MIN },
      },
    ],
    [
      'only rejected: 0 %',
      [task({ ending: 'rejected' }), task({ ending: 'rejected' })],
      { finished: 0, rejected: 2, successRate: 0, iterationsPerFinished: null, tokensPerFinished: null },
    ],
    [
      'a cost no run reported is left out of the mean, not counted as $0',
      [task({ costUsd: 0.2 }), task({ costUsd: null })],
      { finished: 2, costPerFinishedUsd: 0.2, totalCostUsd: 0.2 },
    ],
    [
      'no start time: not in the percentiles, still finished',
      [task({ startedAtMs: null }), task({}, 4)],
      { finished: 2, timeToDoneMs: { p50: 4 * MIN, p95: 4 * MIN } },
    ],
    [
      'refused claims, retries and usage-limit waits add up over every ending',
      [
        task({ refusedClaims: 1, retries: 2 }),
        task({ ending: 'rejected', refusedClaims: 2, usageLimitWaits: 3 }),
        task({ ending: 'review', retries: 1 }),
      ],
      { refusedClaims: 3, retries: 3, usageLimitWaits: 3 },
    ],
    [
      'an unreadable file counts in its folder, in no other figure',
      [task(), task({ readable: false, iterations: null, tokens: null, costUsd: null, startedAtMs: null, retries: 0 })],
      { finished: 2, successRate: 1, iterationsPerFinished: 2, tokensPerFinished: 1000, totalTokens: 1000 },
    ],
  ])('%s', (_name, tasks, expected) => {
    const figures = figuresOf(tasks);
    for (const [key, value] of Object.entries(expected)) {
      const actual = figures[key as keyof typeof figures];
      if (typeof value === 'number') expect(actual, key).toBeCloseTo(value, 10);
      else expect(actual, key).toEqual(value);
    }
  });
});

describe('the --since window, on the end time', () => {
  test.each<[string, number | null, number | null, boolean]>([
    ['all time keeps an unknown end', null, null, true],
    ['all time keeps an old end', 0, null, true],
    ['an end inside the window', T0, T0 - 1, true],
    ['an end exactly at its start', T0, T0, true],
    ['an end before it', T0 - 1, T0, false],
    ['an unknown end with a window', null, T0, false],
  ])('%s', (_name, endedAtMs, sinceMs, kept) => {
    expect(inWindow({ endedAtMs }, sinceMs)).toBe(kept);
  });

  test('computeStats: per harness and overall, only what ended in the window', () => {
    const old = T0 - 10 * 24 * 60 * MIN;
    const stats = computeStats(
      [
        task(),
        task({ harness: 'codex', ending: 'rejected' }),
        task({ harness: 'codex', costUsd: null }),
        task({ harness: 'codex', startedAtMs: old - MIN, endedAtMs: old }),
        task({ readable: false, harness: 'claude' }),
      ],
      T0 - 7 * 24 * 60 * MIN,
      2,
    );
    expect(stats.overall).toMatchObject({ finished: 3, rejected: 1, successRate: 0.75 });
    expect(Object.keys(stats.harnesses)).toEqual(['claude', 'codex']);
    expect(stats.harnesses['claude']).toMatchObject({
      finished: 1,
      rejected: 0,
      successRate: 1,
      costPerFinishedUsd: 0.1,
    });
    expect(stats.harnesses['codex']).toMatchObject({
      finished: 1,
      rejected: 1,
      successRate: 0.5,
      costPerFinishedUsd: null,
    });
    expect(stats.unreadable).toEqual({ tasks: 1, histories: 2 });
    expect(computeStats([task({ endedAtMs: old })], null).overall.finished).toBe(1);
  });
});
