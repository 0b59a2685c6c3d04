import { describe, expect, test } from 'vitest';
import { decide, gate } from '../../src/loop/decide.js';
import { NOTHING_SPENT } from '../../src/memory/spent.js';
import type { DecisionPolicy, LoopState } from '../../src/loop/decide.js';
import type { IterationOutcome } from '../../src/loop/outcome.js';
import { retryDelayMs } from '../../src/loop/retry-policy.js';

const policy: DecisionPolicy = {
  retry: {
    maxAttempts: 3,
    baseDelayMs: 1000,
    maxDelayMs: 16_000,
    jitter: 0.2,
    retriable: { exitCodes: [], patterns: [] },
  },
  noProgressLimit: 3,
  usageLimitMaxWaitMs: 6 * 3_600_000,
  outageMaxWaitMs: 3_600_000,
  failFast: false,
};

const state: LoopState = {
  iteration: 4,
  maxIterations: 10,
  attempt: 0,
  usageWaits: 0,
  waitingSinceMs: null,
  noProgressStreak: 0,
  activeMs: 0,
  refusal: null,
  warned: false,
  spent: NOTHING_SPENT,
};
const NOW = 1_800_000_000_000;
const mid = (): number => 0.5;

describe('retryDelayMs', () => {
  test.each([
    [1, 0.5, 1000],
    [2, 0.5, 2000],
    [3, 0.5, 4000],
    [4, 0.5, 8000],
    [5, 0.5, 16_000],
    [6, 0.5, 16_000],
    [9, 0.5, 16_000],
    [1, 0, 800],
    [1, 0.999_999, 1200],
    [5, 0, 12_800],
    [5, 0.999_999, 19_200],
  ])('attempt %i with random %f waits %i ms', (attempt, random, expected) => {
    expect(retryDelayMs(attempt, policy.retry, () => random)).toBe(expected);
  });

  test('jitter stays within ±20 % for every draw', () => {
    for (let i = 0; i <= 100; i += 1) {
      const delay = retryDelayMs(3, policy.retry, () => i / 100.0001);
      expect(delay).toBeGreaterThanOrEqual(3200);
      expect(delay).toBeLessThanOrEqual(4800);
    }
  });
});

describe('decide', () => {
  const cases: [string, IterationOutcome, Partial<LoopState>, Partial<DecisionPolicy>, unknown, Partial<LoopState>][] =
    [
      [
        'accepted completion → done',
        { kind: 'claimed', accepted: true, refusal: null, progressed: true, exitCode: 0 },
        {},
        {},
        { kind: 'done' },
        { iteration: 5 },
      ],
      [
        'refused completion → continue, refusal kept for the next prompt',
        { kind: 'claimed', accepted: false, refusal: 'US-003 does not pass', progressed: true, exitCode: 0 },
        {},
        {},
        { kind: 'continue' },
        { iteration: 5, refusal: 'US-003 does not pass' },
      ],
      [
        'exit 0 → continue, refusal cleared',
        { kind: 'ok', progressed: true },
        { refusal: 'old' },
        {},
        { kind: 'continue' },
        { iteration: 5, refusal: null },
      ],
      [
        'non-zero exit → recorded, loop goes on',
        { kind: 'nonzero-exit', exitCode: 2, signal: null, progressed: true },
        {},
        {},
        { kind: 'continue' },
        { iteration: 5 },
      ],
      [
        'non-zero exit with fail-fast → rejected',
        { kind: 'nonzero-exit', exitCode: 2, signal: null, progressed: true },
        {},
        { failFast: true },
        { kind: 'reject', code: 'E_HARNESS_EXIT', reason: 'the harness exited with code 2 (fail-fast)' },
        { iteration: 5 },
      ],
      [
        'death by signal with fail-fast → rejected, naming the signal',
        { kind: 'nonzero-exit', exitCode: null, signal: 'SIGSEGV', progressed: false },
        {},
        { failFast: true },
        { kind: 'reject', code: 'E_HARNESS_EXIT', reason: 'the harness was killed by SIGSEGV (fail-fast)' },
        {},
      ],
      [
        'first transient failure → retry after 1 s ± jitter',
        { kind: 'transient', code: 'E_HARNESS_RATE_LIMIT', message: '429' },
        {},
        {},
        { kind: 'retry', attempt: 1, delayMs: 1000 },
        { attempt: 1, iteration: 4 },
      ],
      [
        'third transient failure → retry after 4 s',
        { kind: 'transient', code: 'E_HARNESS_NETWORK', message: 'ECONNRESET' },
        { attempt: 2 },
        {},
        { kind: 'retry', attempt: 3, delayMs: 4000 },
        { attempt: 3 },
      ],
      [
        'fourth transient failure → rejected, retries exhausted',
        { kind: 'transient', code: 'E_HARNESS_TIMEOUT', message: 'timed out after 300 s' },
        { attempt: 3 },
        {},
        { kind: 'reject', code: 'E_RETRIES_EXHAUSTED', reason: 'timed out after 300 s; still failing after 3 retries' },
        { attempt: 3 },
      ],
      [
        'transient with fail-fast → rejected at once',
        { kind: 'transient', code: 'E_HARNESS_RATE_LIMIT', message: '429' },
        {},
        { failFast: true },
        { kind: 'reject', code: 'E_HARNESS_RATE_LIMIT', reason: '429 (fail-fast: no retries)' },
        {},
      ],
      [
        'a success resets the retry counter',
        { kind: 'ok', progressed: true },
        { attempt: 2, usageWaits: 1 },
        {},
        { kind: 'continue' },
        { attempt: 0, usageWaits: 0 },
      ],
      [
        'hard failure → rejected',
        { kind: 'hard', code: 'E_HARNESS_AUTH', message: 'invalid x-api-key' },
        {},
        {},
        { kind: 'reject', code: 'E_HARNESS_AUTH', reason: 'invalid x-api-key' },
        { iteration: 4 },
      ],
      [
        'usage limit → wait until the reset, not counted as a failure',
        { kind: 'usage-limit', resetAtMs: NOW + 3_600_000, message: 'limit' },
        {},
        {},
        { kind: 'wait', untilMs: NOW + 3_600_000 },
        { attempt: 0, usageWaits: 1, iteration: 4 },
      ],
      [
        'usage limit resetting beyond the cap → rejected',
        { kind: 'usage-limit', resetAtMs: NOW + 7 * 3_600_000, message: 'limit' },
        {},
        {},
        { kind: 'reject', code: 'E_HARNESS_USAGE_LIMIT' },
        {},
      ],
      [
        'usage limit without a reset time → a probe after the first backoff',
        { kind: 'usage-limit', resetAtMs: null, message: 'limit' },
        {},
        {},
        { kind: 'wait', untilMs: NOW + 1000, why: 'usage-limit' },
        { usageWaits: 1, waitingSinceMs: NOW },
      ],
      [
        'usage limit without a reset time, past retry.max_attempts → still probed, not rejected',
        { kind: 'usage-limit', resetAtMs: null, message: 'limit' },
        { usageWaits: 6, waitingSinceMs: NOW - 60_000 },
        {},
        { kind: 'wait', untilMs: NOW + 64_000, why: 'usage-limit' },
        { usageWaits: 7, waitingSinceMs: NOW - 60_000 },
      ],
      [
        'usage limit without a reset time → probes at most 5 minutes apart',
        { kind: 'usage-limit', resetAtMs: null, message: 'limit' },
        { usageWaits: 12, waitingSinceMs: NOW - 3_600_000 },
        {},
        { kind: 'wait', untilMs: NOW + 300_000 },
        {},
      ],
      [
        'usage limit without a reset time → the last probe at usage_limit_max_wait',
        { kind: 'usage-limit', resetAtMs: null, message: 'limit' },
        { usageWaits: 12, waitingSinceMs: NOW - 6 * 3_600_000 + 500 },
        {},
        { kind: 'wait', untilMs: NOW + 500 },
        {},
      ],
      [
        'usage limit without a reset time, limited for usage_limit_max_wait → rejected',
        { kind: 'usage-limit', resetAtMs: null, message: 'limit' },
        { usageWaits: 40, waitingSinceMs: NOW - 6 * 3_600_000 },
        {},
        {
          kind: 'reject',
          code: 'E_HARNESS_USAGE_LIMIT',
          reason:
            'limit; still limited after 21600 s of waiting, longer than persistence_loop.usage_limit_max_wait (21600 s)',
        },
        {},
      ],
      [
        'an answer ends the wait: its start is forgotten',
        { kind: 'ok', progressed: true },
        { attempt: 9, waitingSinceMs: NOW - 60_000 },
        {},
        { kind: 'continue' },
        { attempt: 0, waitingSinceMs: null },
      ],
      [
        'stop flag → stop',
        { kind: 'stopped', reason: 'stop-flag', progressed: false },
        {},
        {},
        { kind: 'stop', reason: 'stop-flag' },
        { iteration: 4 },
      ],
      [
        'interrupted → stop',
        { kind: 'stopped', reason: 'interrupted', progressed: false },
        {},
        {},
        { kind: 'stop', reason: 'interrupted' },
        {},
      ],
      [
        'stopped after it changed memory → stop, the iteration counts',
        { kind: 'stopped', reason: 'stop-flag', progressed: true },
        { attempt: 2 },
        {},
        { kind: 'stop', reason: 'stop-flag' },
        { iteration: 5, attempt: 0, noProgressStreak: 0 },
      ],
      [
        'no progress, under the limit → continue',
        { kind: 'ok', progressed: false },
        { noProgressStreak: 1 },
        {},
        { kind: 'continue' },
        { noProgressStreak: 2 },
      ],
      [
        'no progress for 3 iterations → rejected as stuck',
        { kind: 'ok', progressed: false },
        { noProgressStreak: 2 },
        {},
        { kind: 'reject', code: 'E_NO_PROGRESS' },
        { noProgressStreak: 3, iteration: 5 },
      ],
      [
        'the breaker can be turned off',
        { kind: 'ok', progressed: false },
        { noProgressStreak: 50 },
        { noProgressLimit: 0 },
        { kind: 'continue' },
        { noProgressStreak: 51 },
      ],
      [
        'progress resets the streak',
        { kind: 'nonzero-exit', exitCode: 1, signal: null, progressed: true },
        { noProgressStreak: 2 },
        {},
        { kind: 'continue' },
        { noProgressStreak: 0 },
      ],
    ];

  test.each(cases)('%s', (_name, outcome, before, policyChange, action, after) => {
    const decision = decide(outcome, { ...state, ...before }, { ...policy, ...policyChange }, NOW, mid);
    expect(decision.action).toMatchObject(action as object);
    expect(decision.state).toMatchObject(after);
  });
});

describe('gate (exit conditions before each iteration)', () => {
  const limits = {
    totalTimeoutMs: 3_600_000,
    warnThreshold: 0.8,
    budget: { maxTokens: 0, maxCostUsd: 0, maxDurationMs: 0 },
  };
  test.each([
    ['go', {}, null, { kind: 'go', warn: false }],
    ['a stop request wins over everything', { iteration: 10 }, 'stop-flag', { kind: 'stop', reason: 'stop-flag' }],
    ['max iterations reached', { iteration: 10 }, null, { kind: 'reject', code: 'E_MAX_ITERATIONS' }],
    ['total time used', { activeMs: 3_600_000 }, null, { kind: 'reject', code: 'E_TOTAL_TIMEOUT' }],
    ['iteration 8 of 10 crosses 80 %', { iteration: 7 }, null, { kind: 'go', warn: true }],
    ['iteration 7 of 10 does not', { iteration: 6 }, null, { kind: 'go', warn: false }],
    ['the warning is given once', { iteration: 8, warned: true }, null, { kind: 'go', warn: false }],
  ] as const)('%s', (_name, before, stop, expected) => {
    expect(gate({ ...state, ...before }, { stop, nowMs: NOW }, limits)).toMatchObject(expected);
  });

  test('with 100 iterations the warning comes at iteration 80', () => {
    const at = (iteration: number) =>
      gate({ ...state, maxIterations: 100, iteration }, { stop: null, nowMs: NOW }, limits);
    expect(at(78)).toEqual({ kind: 'go', warn: false });
    expect(at(79)).toEqual({ kind: 'go', warn: true });
  });
});

describe('decide: outages', () => {
  const network: IterationOutcome = { kind: 'transient', code: 'E_HARNESS_NETWORK', message: 'connect ECONNREFUSED' };
  const cases: [string, IterationOutcome, Partial<LoopState>, boolean, unknown, Partial<LoopState>][] = [
    [
      'a network error past the retries → the harness is in an outage, probed with backoff',
      network,
      { attempt: 3, waitingSinceMs: NOW - 7000 },
      false,
      { kind: 'wait', why: 'outage', untilMs: NOW + 8000 },
      { attempt: 4, iteration: 4, waitingSinceMs: NOW - 7000 },
    ],
    [
      'an overload past the retries → an outage too',
      { kind: 'transient', code: 'E_HARNESS_OVERLOADED', message: '503' },
      { attempt: 3 },
      false,
      { kind: 'wait', why: 'outage' },
      { waitingSinceMs: NOW },
    ],
    [
      'exit 75 of a command harness past the retries → an outage',
      { kind: 'transient', code: 'E_HARNESS_TEMPFAIL', message: 'exit 75' },
      { attempt: 3 },
      false,
      { kind: 'wait', why: 'outage' },
      {},
    ],
    [
      'a first network error while another task fails on the harness → an outage at once',
      network,
      {},
      true,
      { kind: 'wait', why: 'outage', untilMs: NOW + 1000 },
      { attempt: 1, waitingSinceMs: NOW },
    ],
    [
      'a first network error on its own → an ordinary retry',
      network,
      {},
      false,
      { kind: 'retry', attempt: 1 },
      { waitingSinceMs: NOW },
    ],
    [
      "a timeout is the task's own trouble, not an outage, whatever others see",
      { kind: 'transient', code: 'E_HARNESS_TIMEOUT', message: 'timed out' },
      { attempt: 3 },
      true,
      { kind: 'reject', code: 'E_RETRIES_EXHAUSTED' },
      {},
    ],
    [
      'probes are at most 5 minutes apart',
      network,
      { attempt: 30, waitingSinceMs: NOW - 60_000 },
      false,
      { kind: 'wait', why: 'outage', untilMs: NOW + 300_000 },
      {},
    ],
    [
      'the last probe comes when outage_max_wait runs out',
      network,
      { attempt: 30, waitingSinceMs: NOW - 3_600_000 + 2000 },
      false,
      { kind: 'wait', why: 'outage', untilMs: NOW + 2000 },
      {},
    ],
    [
      'failing for outage_max_wait → rejected, saying outage',
      network,
      { attempt: 30, waitingSinceMs: NOW - 3_600_000 },
      true,
      {
        kind: 'reject',
        code: 'E_HARNESS_OUTAGE',
        reason: expect.stringContaining(
          'outage: the harness kept failing with network or overload errors for 3600 s',
        ) as unknown,
      },
      {},
    ],
    [
      'fail-fast rejects an outage at once',
      network,
      { attempt: 3 },
      true,
      { kind: 'reject', code: 'E_HARNESS_NETWORK' },
      {},
    ],
  ];

  test.each(cases)('%s', (name, outcome, before, othersFailing, action, after) => {
    const failFast = name.startsWith('fail-fast');
    const decision = decide(outcome, { ...state, ...before }, { ...policy, failFast }, NOW, mid, othersFailing);
    expect(decision.action).toMatchObject(action as object);
    expect(decision.state).toMatchObject(after);
  });

  test('an outage uses no iteration and never counts towards the stuck rule', () => {
    let current: LoopState = { ...state, noProgressStreak: 2 };
    for (let i = 0; i < 20; i += 1) current = decide(network, current, policy, NOW + i * 1000, mid, true).state;
    expect(current).toMatchObject({ iteration: 4, noProgressStreak: 2 });
  });
});
