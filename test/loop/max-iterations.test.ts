import { describe, expect, test } from 'vitest';
import { maxIterationsChange } from '../../src/loop/max-iterations.js';
import type { MaxIterationsChange, MaxIterationsInput } from '../../src/loop/max-iterations.js';

const base: MaxIterationsInput = {
  current: 8,
  done: 1,
  fileBefore: 8,
  fileNow: 8,
  override: undefined,
  configDefault: 100,
};

describe('maxIterationsChange', () => {
  test.each<[string, Partial<MaxIterationsInput>, MaxIterationsChange]>([
    ['the file unchanged', {}, { kind: 'same' }],
    [
      '8 → 3 with 1 done: applied',
      { fileNow: 3 },
      {
        kind: 'applied',
        maxIterations: 3,
        message:
          'max_iterations in the task file changed from 8 to 3: it takes effect now, the loop runs at most 3 iterations',
      },
    ],
    [
      '8 → 3 with 3 done: applied, and the task ends now',
      { fileNow: 3, done: 3 },
      {
        kind: 'applied',
        maxIterations: 3,
        message:
          'max_iterations in the task file changed from 8 to 3: it takes effect now, the loop runs at most 3 iterations; 3 iterations have finished, so the task ends now',
      },
    ],
    [
      '8 → 20: applied',
      { fileNow: 20 },
      {
        kind: 'applied',
        maxIterations: 20,
        message:
          'max_iterations in the task file changed from 8 to 20: it takes effect now, the loop runs at most 20 iterations',
      },
    ],
    [
      'the key removed: the config default',
      { fileNow: null },
      {
        kind: 'applied',
        maxIterations: 100,
        message:
          'max_iterations in the task file changed from 8 to unset: it takes effect now, the loop runs at most 100 iterations',
      },
    ],
    [
      'the key added',
      { fileBefore: null, fileNow: 5, current: 100 },
      {
        kind: 'applied',
        maxIterations: 5,
        message:
          'max_iterations in the task file changed from unset to 5: it takes effect now, the loop runs at most 5 iterations',
      },
    ],
    [
      'the file now says what the loop already uses',
      { fileBefore: null, fileNow: 100, current: 100 },
      { kind: 'same' },
    ],
    [
      '--max-iterations wins: not applied, said',
      { fileNow: 3, override: 8 },
      {
        kind: 'not-applied',
        message:
          'max_iterations in the task file changed from 8 to 3, but --max-iterations 8 was given for this run: not applied, the run keeps 8',
      },
    ],
    ['--max-iterations and the file unchanged', { override: 8 }, { kind: 'same' }],
  ])('%s', (_, input, expected) => {
    expect(maxIterationsChange({ ...base, ...input })).toEqual(expected);
  });
});
