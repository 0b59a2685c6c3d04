import { describe, expect, test } from 'vitest';
import { countText, describeIterations, iterationCount, ordinal } from '../../src/task/iteration-count.js';

describe('the one iteration count', () => {
  test.each<[string, number | undefined, number | undefined, boolean, string]>([
    ['never ran', undefined, undefined, false, 'iterations 0 done'],
    ['refused before it ran', 0, 100, false, 'iterations 0 of 100 done'],
    ['the 1st running', 0, 8, true, 'iterations 0 of 8 done, the 1st running'],
    ['1 done, the 2nd running', 1, 8, true, 'iterations 1 of 8 done, the 2nd running'],
    ['between iterations', 2, 8, false, 'iterations 2 of 8 done'],
    ['the 12th running', 11, 20, true, 'iterations 11 of 20 done, the 12th running'],
  ])('%s', (_, iteration, max, running, expected) => {
    const count = iterationCount(iteration, max, running);
    expect(describeIterations(count)).toBe(expected);
    expect(countText(count)).toBe(expected.slice('iterations '.length));
    // The first number said is always the checkpoint's: what `persistence_loop.iteration` holds.
    expect(Number(/iter(ation)?s?[^0-9a-z]{0,3}#?([0-9]+)/i.exec(expected)?.[2])).toBe(iteration ?? 0);
  });

  test.each([
    [1, '1st'],
    [2, '2nd'],
    [3, '3rd'],
    [4, '4th'],
    [11, '11th'],
    [12, '12th'],
    [13, '13th'],
    [21, '21st'],
    [22, '22nd'],
    [101, '101st'],
    [111, '111th'],
  ])('ordinal %i is %s', (n, expected) => {
    expect(ordinal(n)).toBe(expected);
  });
});
