import { expect, test } from 'vitest';
import { appendContextText } from '../../src/memory/context.js';
import { appendSectionText, progressHeader, progressSection } from '../../src/memory/progress.js';

const at = Date.parse('2025-03-11T10:00:00Z');

test("the header has the original Ralph's structure", () => {
  expect(progressHeader(at)).toBe(
    '# Ralph Progress Log\nStarted: 2025-03-11 10:00:00 UTC\n---\n\n## Codebase Patterns\n\n---\n',
  );
});

test('a section is headed by the date and the story, or the iteration when no story is known', () => {
  expect(progressSection({ atMs: at, iteration: 3, storyId: 'US-002', lines: ['exit 0', '  - nested'] })).toBe(
    '## 2025-03-11 10:00:00 UTC - US-002\n- exit 0\n  - nested\n---\n',
  );
  expect(progressSection({ atMs: at, iteration: 4, storyId: null, lines: [] })).toBe(
    '## 2025-03-11 10:00:00 UTC - iteration 4\n---\n',
  );
});

test('sections are appended after one blank line whatever the file ends with', () => {
  const section = '## s\n---\n';
  expect(appendSectionText(progressHeader(at), section)).toBe(`${progressHeader(at)}\n${section}`);
  expect(appendSectionText('edited by agent', section)).toBe(`edited by agent\n\n${section}`);
  expect(appendSectionText('x\n\n', '## s')).toBe('x\n\n## s\n');
  expect(appendSectionText('', section)).toBe(section);
});

test('context entries carry a timestamp line and empty text is refused', () => {
  expect(appendContextText('', '  use pnpm \n', at)).toBe('### Added 2025-03-11 10:00 UTC\n\nuse pnpm\n');
  expect(() => appendContextText('', '  \n', at)).toThrow(/empty/);
});
