import { describe, expect, test } from 'vitest';
import { didYouMean, didYouMeanSuffix } from '../../src/config/did-you-mean.js';

const HARNESSES = ['demo', 'claude', 'codex', 'opencode', 'amp', 'gemini'];

describe('didYouMean', () => {
  test.each([
    // typed, known, expected
    ['demoo', HARNESSES, 'demo'],
    ['dmeo', HARNESSES, 'demo'],
    ['cluade', HARNESSES, 'claude'],
    ['claud', HARNESSES, 'claude'],
    ['Claude', HARNESSES, 'claude'],
    ['CODEX', HARNESSES, 'codex'],
    ['opencod', HARNESSES, 'opencode'],
    ['gemeni', HARNESSES, 'gemini'],
    ['amp', HARNESSES, null],
    ['ap', HARNESSES, 'amp'],
    ['a', HARNESSES, null],
    ['cursor', HARNESSES, null],
    ['something-else', HARNESSES, null],
    ['', HARNESSES, null],
    ['demo', [], null],
    // ties go to the name listed first
    ['cod', ['cot', 'cog'], 'cot'],
    // the closest wins over one listed earlier
    ['codexx', ['codec', 'codex'], 'codex'],
  ] as const)('%s among %j → %s', (typed, known, expected) => {
    expect(didYouMean(typed, known)).toBe(expected);
  });

  test('the suffix is empty when nothing is close', () => {
    expect(didYouMeanSuffix('demoo', HARNESSES)).toBe(' (did you mean demo?)');
    expect(didYouMeanSuffix('cursor', HARNESSES)).toBe('');
  });
});
