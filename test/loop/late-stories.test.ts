import { describe, expect, test } from 'vitest';
import { storiesAddedDuring, withLateStoriesNote, withStoriesAddedDuringRun } from '../../src/loop/late-stories.js';
import type { IterationRun } from '../../src/loop/iteration.js';
import type { IterationOutcome } from '../../src/loop/outcome.js';
import type { Prd, UserStory } from '../../src/memory/prd.js';

const story = (id: string, passes: boolean): UserStory => ({
  id,
  title: `title ${id}`,
  priority: Number(id.slice(2)),
  passes,
});
const prd = (...stories: UserStory[]): Prd => ({ userStories: stories });

const record: IterationRun['record'] = {
  iteration: 1,
  attempt: 0,
  startedAt: '2026-01-27T10:00:00Z',
  endedAt: '2026-01-27T10:01:00Z',
  durationMs: 60_000,
  harness: 'fake',
  exitCode: 0,
  signal: null,
  outcome: 'complete',
  completionFound: true,
  completionAccepted: true,
  storiesPassing: 1,
  storiesTotal: 1,
};
const accepted: IterationOutcome = { kind: 'claimed', accepted: true, refusal: null, progressed: true, exitCode: 0 };

describe('storiesAddedDuring', () => {
  test.each([
    ['nothing added', prd(story('S-1', true)), prd(story('S-1', true)), []],
    ['one added, failing', prd(story('S-1', true)), prd(story('S-1', true), story('S-2', false)), ['S-2']],
    ['one added already ticked by the user', prd(story('S-1', true)), prd(story('S-1', true), story('S-2', true)), []],
    [
      'two added, one failing',
      prd(story('S-1', false)),
      prd(story('S-1', false), story('S-2', true), story('S-3', false)),
      ['S-3'],
    ],
    ['a known story failing is not "added"', prd(story('S-1', false)), prd(story('S-1', false)), []],
  ])('%s', (_, seen, after, expected) => {
    expect(storiesAddedDuring(seen, after).map((s) => s.id)).toEqual(expected);
  });
});

describe('withStoriesAddedDuringRun', () => {
  const after = prd(story('S-1', true), story('S-2', false));

  test('nothing added: the run as it was, the very same object', () => {
    const run = { outcome: accepted, record };
    expect(withStoriesAddedDuringRun(run, [], after)).toBe(run);
  });

  test('an accepted claim becomes refused, with a reason naming the story, and the line counts it', () => {
    const { outcome, record: line } = withStoriesAddedDuringRun(
      { outcome: accepted, record },
      [story('S-2', false)],
      after,
    );
    expect(outcome).toMatchObject({ kind: 'claimed', accepted: false, progressed: true });
    expect(outcome.kind === 'claimed' && outcome.refusal).toContain('S-2 title S-2');
    expect(line).toMatchObject({ outcome: 'refused', completionAccepted: false, storiesPassing: 1, storiesTotal: 2 });
    expect(line.refusal).toContain('S-2 title S-2');
  });

  test.each<[string, IterationOutcome, string]>([
    [
      'a refused claim',
      { kind: 'claimed', accepted: false, refusal: 'only 0 of 1', progressed: false, exitCode: 0 },
      'refused',
    ],
    ['an iteration without a claim', { kind: 'ok', progressed: true }, 'continue'],
    ['a failed run', { kind: 'nonzero-exit', exitCode: 3, signal: null, progressed: false }, 'nonzero-exit'],
    ['a transient failure', { kind: 'transient', code: 'E_HARNESS_OVERLOADED', message: 'overloaded' }, 'transient'],
  ])('%s keeps its outcome; only the story count changes', (_, outcome, name) => {
    const checked = withStoriesAddedDuringRun(
      { outcome, record: { ...record, outcome: name } },
      [story('S-2', false)],
      after,
    );
    expect(checked.outcome).toBe(outcome);
    expect(checked.record).toMatchObject({ outcome: name, storiesPassing: 1, storiesTotal: 2 });
  });
});

describe('withLateStoriesNote', () => {
  test.each([
    ['no story late', [], 'reached max_iterations (1) without a verified completion'],
    [
      'one',
      [story('S-2', false)],
      'reached max_iterations (1) without a verified completion; added too late: S-2 title S-2 was added to the checklist during the last iteration, and no iteration was left to work on it',
    ],
    [
      'two',
      [story('S-2', false), story('S-3', false)],
      'reached max_iterations (1) without a verified completion; added too late: S-2 title S-2, S-3 title S-3 were added to the checklist during the last iteration, and no iteration was left to work on them',
    ],
  ])('%s', (_, late, expected) => {
    expect(withLateStoriesNote('reached max_iterations (1) without a verified completion', late)).toBe(expected);
  });
});
