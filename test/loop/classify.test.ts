import { describe, expect, test } from 'vitest';
import { WiggumError } from '../../src/errors.js';
import { classify } from '../../src/loop/classify.js';
import type { RunFacts } from '../../src/loop/classify.js';

const question = { text: 'Which colour?', length: 13 };

function facts(over: Partial<RunFacts> = {}, result: Partial<RunFacts['result']> = {}): RunFacts {
  return {
    result: { exitCode: 0, signal: null, timedOut: false, stopped: false, spawnError: null, ...result },
    failure: null,
    stopped: null,
    deadline: null,
    prdError: null,
    limitHit: null,
    completionFound: false,
    asking: { kind: 'none' },
    progressed: true,
    iteration: 3,
    totalTimeoutMs: 60_000,
    maxDurationMs: 120_000,
    ...over,
  };
}

describe('classify', () => {
  const spawnError = new WiggumError('E_HARNESS_MISSING', 'spawn ENOENT');
  test.each<[string, RunFacts, Record<string, unknown>]>([
    ['exit 0, no promise: work goes on', facts(), { kind: 'ok', progressed: true }],
    [
      'a non-zero exit',
      facts({ progressed: false }, { exitCode: 2 }),
      { kind: 'nonzero-exit', exitCode: 2, signal: null, progressed: false },
    ],
    ['a promise: a claim still to check', facts({ completionFound: true }), { kind: 'claim', exitCode: 0 }],
    [
      'a question beats a promise in the same reply',
      facts({ completionFound: true, asking: { kind: 'asked', question, source: 'message' } }),
      { kind: 'asked', question },
    ],
    [
      'a sandbox limit fails the run whatever its exit, a claim too',
      facts({ completionFound: true, limitHit: 'the process limit' }),
      { kind: 'nonzero-exit', exitCode: 0, signal: null, limit: 'the process limit' },
    ],
    ['an empty question is no question', facts({ asking: { kind: 'empty', source: 'file' } }), { kind: 'ok' }],
    [
      'prd.json that no longer parses ends the task, whatever else',
      facts({ prdError: new Error('bad json'), completionFound: true }),
      { kind: 'hard', code: 'E_MEMORY_CORRUPT', message: 'bad json' },
    ],
    [
      'the total time ran out mid-run',
      facts({ deadline: 'total' }, { timedOut: true }),
      { kind: 'hard', code: 'E_TOTAL_TIMEOUT' },
    ],
    [
      'max_duration ran out mid-run',
      facts({ deadline: 'budget' }, { timedOut: true }),
      { kind: 'hard', code: 'E_BUDGET' },
    ],
    [
      "the user's stop, with the work it did",
      facts({ stopped: 'stop-flag' }, { stopped: true, exitCode: null, signal: 'SIGTERM' }),
      { kind: 'stopped', reason: 'stop-flag', progressed: true },
    ],
    [
      'a usage limit with its reset',
      facts({ failure: { kind: 'usage-limit', code: 'E_HARNESS_USAGE_LIMIT', message: 'limit', resetAtMs: 5 } }),
      { kind: 'usage-limit', resetAtMs: 5, message: 'limit' },
    ],
    [
      'a transient failure',
      facts({ failure: { kind: 'transient', code: 'E_HARNESS_NETWORK', message: 'reset' } }, { exitCode: 1 }),
      { kind: 'transient', code: 'E_HARNESS_NETWORK', message: 'reset' },
    ],
    [
      'a harness that could not start carries the spawn error',
      facts(
        { failure: { kind: 'hard', code: 'E_HARNESS_MISSING', message: 'not found' } },
        { exitCode: null, spawnError },
      ),
      { kind: 'hard', code: 'E_HARNESS_MISSING', error: spawnError },
    ],
    [
      'a failure beats a promise',
      facts({ completionFound: true, failure: { kind: 'transient', code: 'E_HARNESS_NETWORK', message: 'x' } }),
      { kind: 'transient' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(classify(input)).toMatchObject(expected);
  });
});
