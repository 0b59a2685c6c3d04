import { describe, expect, test } from 'vitest';
import { STORIES_SHOWN, cutText, storyLine } from '../../src/loop/report-bounds.js';

const story = (n: number, passes = false, title = `Story ${n}`) => ({ id: `S-${n}`, title, passes });

describe('what a report shows of the stories', () => {
  test.each([
    ['no stories', [], 'none.'],
    ['two stories, all listed', [story(1, true), story(2)], '1 of 2 passing (✓ S-1 Story 1; ✗ S-2 Story 2).'],
  ])('%s', (_name, stories, line) => {
    expect(storyLine(stories)).toBe(line);
  });

  test('700,000 stories: the first 50 failing ones, and how many more', () => {
    const stories = Array.from({ length: 700_000 }, (_, i) => story(i + 1, i % 2 === 0));
    const line = storyLine(stories);
    expect(line.startsWith('350,000 of 700000 passing'.replace('350,000', '350000'))).toBe(true);
    expect(line).toContain('… and 699,950 more');
    expect(line.match(/✗/g)).toHaveLength(STORIES_SHOWN);
    expect(line.length).toBeLessThan(20_000);
  });

  test('a long title is cut, and says so', () => {
    const line = storyLine([story(1, false, 'y'.repeat(10_000))]);
    expect(line).toContain('… (cut: 10,000 characters)');
    expect(line.length).toBeLessThan(400);
  });

  test.each([
    ['short', 5, 'short'],
    ['exactly', 7, 'exactly'],
    ['abcdef', 3, 'abc… (cut: 6 characters)'],
    ['a🚀b', 2, 'a… (cut: 4 characters)'],
  ])('cutText(%s, %i)', (text, max, cut) => {
    expect(cutText(text, max)).toBe(cut);
  });
});
