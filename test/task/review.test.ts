import { describe, expect, test } from 'vitest';
import { reviewHolds } from '../../src/daemon/review-desk.js';
import { startPlan } from '../../src/loop/resume-plan.js';
import { changeRequestOf, needsReview } from '../../src/task/review.js';

describe('needsReview: the task key wins over review.required', () => {
  test.each([
    [undefined, false, false],
    [undefined, true, true],
    [true, false, true],
    [false, true, false],
    [true, true, true],
  ])('review: %s with required %s → %s', (key, required, expected) => {
    expect(needsReview(key, required)).toBe(expected);
  });
});

const SUMMARY = '## Completion summary\n\nDone after 1 iteration.\n';

describe('changeRequestOf: the request written after the last completion summary', () => {
  test.each([
    ['no request', `Do it.\n\n${SUMMARY}`, null],
    ['a request after the summary', `Do it.\n\n${SUMMARY}\n## Changes requested\n\nRename it.\n`, 'Rename it.'],
    ['an empty request', `Do it.\n\n${SUMMARY}\n## Changes requested\n\n   \n`, null],
    ['a request before the summary was answered', `Do it.\n\n## Changes requested\n\nOld.\n\n${SUMMARY}`, null],
    [
      'an old request and a new one',
      `## Changes requested\n\nOld.\n\n${SUMMARY}\n## Changes requested\n\nNew one.\n`,
      'New one.',
    ],
    [
      'two new requests are joined',
      `${SUMMARY}\n## Changes requested\n\nA.\n\n## Changes requested\n\nB.\n`,
      'A.\n\nB.',
    ],
    ['the section ends at the next heading', `${SUMMARY}\n## Changes requested\n\nA.\n\n## Notes\n\nmine\n`, 'A.'],
    ['a sub-heading stays in the request', `${SUMMARY}\n## Changes requested\n\n### UI\nA.\n`, '### UI\nA.'],
    ['the heading in any letter case', `${SUMMARY}\n## changes requested\n\nA.\n`, 'A.'],
    ['no summary at all (an edited file)', '## Changes requested\n\nA.\n', 'A.'],
    ['CRLF line endings', `${SUMMARY}\r\n## Changes requested\r\n\r\nA.\r\n`, 'A.'],
  ])('%s', (_name, body, expected) => {
    expect(changeRequestOf(body)).toBe(expected);
  });
});

describe('reviewHolds: review.max_pending', () => {
  test.each([
    [0, null, false],
    [5, null, false],
    [0, 1, false],
    [1, 1, true],
    [2, 1, true],
    [2, 3, false],
  ])('%s waiting with max_pending %s → holds %s', (pending, max, expected) => {
    expect(reviewHolds(pending, max)).toBe(expected);
  });
});

describe('startPlan for a task that waited for review', () => {
  test.each([
    ['review', true, { kind: 'finish-move', as: 'review' }],
    ['review', false, { kind: 'review-returned' }],
    ['done', false, { kind: 'send-back', from: 'done' }],
  ] as const)('%s with a pending move %s', (ended, pending, expected) => {
    expect(startPlan(ended, pending)).toEqual(expected);
  });
});
