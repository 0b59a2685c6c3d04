import { describe, expect, test } from 'vitest';
import { formatLoops, openState } from '../../src/ralph/list-loops.js';

describe('what an open ralph loop is doing', () => {
  test.each([
    [undefined, false, 'queued'],
    ['queued', false, 'queued'],
    ['running', true, 'running'],
    ['waiting', true, 'waiting'],
    ['stopped', false, 'stopped'],
    // Its checkpoint says running, but nobody holds its lock: the process ended without its last word.
    ['running', false, 'interrupted'],
    ['waiting', false, 'interrupted'],
    ['interrupted', false, 'interrupted'],
  ] as const)('checkpoint %s, a live lock owner %s: %s', (status, live, state) => {
    expect(openState(status, live)).toBe(state);
  });

  test('one line per loop, names aligned', () => {
    expect(
      formatLoops([
        { change: 'a', state: 'running', iteration: 2, maxIterations: 10, updated: '2026-01-01T00:00:00Z', pid: 42 },
        { change: 'longer', state: 'done', iteration: 1, maxIterations: null, updated: null, pid: null },
      ]),
    ).toBe(
      'a       running      iteration 2 of 10 (pid 42), updated 2026-01-01T00:00:00Z\nlonger  done         iteration 1\n',
    );
  });
});
