import { describe, expect, test } from 'vitest';
import { iterationDeadline } from '../../src/loop/iteration-deadline.js';
import type { DeadlineInput } from '../../src/loop/iteration-deadline.js';

const none: DeadlineInput = { perIterationMs: 0, totalMs: 0, activeMs: 0, maxDurationMs: 0, agentMs: 0 };

describe('iterationDeadline: the nearest of the per-iteration timeout, the total time left and the budget left', () => {
  test.each<[string, Partial<DeadlineInput>, number, string | null]>([
    ['no limit at all', {}, 0, null],
    ['the per-iteration timeout alone', { perIterationMs: 300_000 }, 300_000, 'per-iteration'],
    [
      'the total, far from used up, leaves the per-iteration timeout nearer',
      { perIterationMs: 300_000, totalMs: 3_600_000, activeMs: 60_000 },
      300_000,
      'per-iteration',
    ],
    [
      'the total left is nearer: a 20 s run under total 5 s stops at 5 s',
      { perIterationMs: 20_000, totalMs: 5_000 },
      5_000,
      'total',
    ],
    [
      'time spent before a restart counts',
      { perIterationMs: 300_000, totalMs: 3_600_000, activeMs: 3_500_000 },
      100_000,
      'total',
    ],
    [
      'a total already used up still stops the run at once, never "no limit"',
      { perIterationMs: 300_000, totalMs: 5_000, activeMs: 9_000 },
      1,
      'total',
    ],
    ['no per-iteration timeout: the total bounds the run', { totalMs: 5_000, activeMs: 1_000 }, 4_000, 'total'],
    [
      'the agent-time budget left is nearest',
      { perIterationMs: 300_000, totalMs: 3_600_000, maxDurationMs: 60_000, agentMs: 50_000 },
      10_000,
      'budget',
    ],
    [
      'a tie with the per-iteration timeout goes to the limit that ends the task',
      { perIterationMs: 5_000, totalMs: 5_000 },
      5_000,
      'total',
    ],
    ['a tie between total and budget goes to the total', { totalMs: 5_000, maxDurationMs: 5_000 }, 5_000, 'total'],
  ])('%s', (_name, input, timeoutMs, cause) => {
    expect(iterationDeadline({ ...none, ...input })).toEqual({ timeoutMs, cause });
  });
});
