import { describe, expect, test } from 'vitest';
import { afterLanding, landingStory, landingWaitMs, uncommittedStory } from '../../src/git/land-decide.js';
import type { LandingNext } from '../../src/git/land-decide.js';
import type { LandMergeOutcome } from '../../src/git/land-merge.js';
import type { LandPrOutcome } from '../../src/git/land-pr.js';

const CONFLICT: LandMergeOutcome = {
  kind: 'conflict',
  files: ['a.ts', 'b.ts'],
  baseCommit: 'b'.repeat(40),
  branchCommit: 'c'.repeat(40),
};
const CHECK: LandMergeOutcome = { kind: 'check-failed', output: 'FAIL x.test.ts\n', merged: 'd'.repeat(40) };

describe('afterLanding: what the loop does after a landing attempt', () => {
  test.each<[string, LandMergeOutcome | LandPrOutcome, number, number, LandingNext, RegExp]>([
    [
      'fast-forward → Done',
      { kind: 'landed', how: 'ff', oldBase: 'o', newBase: 'n', followed: [] },
      1,
      2,
      'done',
      /landed \(ff\)/,
    ],
    [
      'already in the base → Done',
      { kind: 'landed', how: 'up-to-date', oldBase: 'o', newBase: 'o', followed: [] },
      1,
      2,
      'done',
      /already/,
    ],
    [
      'pull request opened → Done, naming it',
      { kind: 'opened', url: 'https://x/pull/1', output: '' },
      1,
      2,
      'done',
      /https:\/\/x\/pull\/1/,
    ],
    [
      'conflict with attempts left → back to the loop',
      CONFLICT,
      1,
      2,
      'send-back',
      /conflicts in a\.ts, b\.ts.*attempt 1 of 2/,
    ],
    [
      'conflict on the last attempt → Rejected, naming the files',
      CONFLICT,
      2,
      2,
      'reject',
      /a\.ts, b\.ts, still after 2 landing attempts/,
    ],
    ['failed check with attempts left → back to the loop', CHECK, 1, 3, 'send-back', /check failed/],
    ['failed check, no attempts left → Rejected', CHECK, 1, 1, 'reject', /after 1 landing attempt$/],
    [
      'local changes → wait, saying so',
      { kind: 'wait', reason: 'has main checked out with local changes' },
      1,
      2,
      'wait',
      /local changes/,
    ],
    [
      'a 502 → retry with backoff',
      { kind: 'failed', stage: 'command', retry: 'transient', message: 'HTTP 502' },
      1,
      2,
      'retry',
      /502/,
    ],
    [
      'a rejected push → Rejected',
      { kind: 'failed', stage: 'push', retry: 'hard', message: 'rejected' },
      1,
      2,
      'reject',
      /rejected/,
    ],
  ])('%s', (_, outcome, attempt, max, next, reason) => {
    const decided = afterLanding(outcome, attempt, max);
    expect(decided.next).toBe(next);
    expect(decided.reason).toMatch(reason);
  });
});

describe('landingStory', () => {
  test('a conflict names the files and the base commit to merge', () => {
    const story = landingStory(CONFLICT, 'ralph/t', 'main');
    expect(story.title).toBe('Resolve the merge conflict between ralph/t and main');
    expect(story.context).toContain('- a.ts\n- b.ts');
    expect(story.context).toContain(`git merge ${'b'.repeat(40)}`);
  });

  test("a failed check carries the check's output", () => {
    const story = landingStory(CHECK, 'ralph/t', 'main');
    expect(story.context).toContain('FAIL x.test.ts');
  });
});

describe('landingWaitMs: how long a waiting landing waits before it looks again', () => {
  test.each<[string, number, number]>([
    ['the first wait is 1 s', 1, 1000],
    ['a count of 0 waits as the first', 0, 1000],
    ['then it doubles', 2, 2000],
    ['and doubles again', 3, 4000],
    ['8 s at the fourth', 4, 8000],
    ['15 s at most', 5, 15_000],
    ['and stays there however long it waits', 50, 15_000],
  ])('%s', (_name, waits, expected) => {
    expect(landingWaitMs(waits)).toBe(expected);
  });
});

describe('uncommittedStory: the work a complete task left uncommitted', () => {
  test('names the branch and every file, and says to commit them', () => {
    const story = uncommittedStory(['src/a.ts', 'notes.md'], 'ralph/t1');
    expect(story.title).toBe('Commit the work left uncommitted on ralph/t1');
    expect(story.context).toContain('- src/a.ts\n- notes.md');
    expect(story.context).toMatch(/Landing takes commits only/);
  });

  test('a long list is cut at 20 files and says how many more', () => {
    const files = Array.from({ length: 23 }, (_, i) => `f${i}.txt`);
    const story = uncommittedStory(files, 'b');
    expect(story.context).toContain('- f19.txt\n- … and 3 more');
    expect(story.context).not.toContain('f20.txt');
  });
});
