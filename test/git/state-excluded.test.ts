import { describe, expect, test } from 'vitest';
import { withStateExcluded } from '../../src/git/git.js';

const LINES = "# wiggum's state (its config.yaml is yours to commit)\n/.wiggum/*\n!/.wiggum/config.yaml\n";

describe(".git/info/exclude hides wiggum's state but not the user's config.yaml", () => {
  test.each([
    ['an empty file gets the two lines', '', LINES],
    ['a file without a final newline gets one first', '*.log', `*.log\n${LINES}`],
    ['the lines there already: unchanged', `*.log\n${LINES}`, `*.log\n${LINES}`],
    [
      "an earlier wiggum's broad line is narrowed in place",
      "# wiggum's state\n/.wiggum/\n*.log\n",
      "# wiggum's state\n/.wiggum/*\n!/.wiggum/config.yaml\n*.log\n",
    ],
    [
      'a broad line beside one of the new ones: only the missing one comes in',
      '/.wiggum/\n/.wiggum/*\n',
      '!/.wiggum/config.yaml\n/.wiggum/*\n',
    ],
  ])('%s', (_, before, after) => {
    expect(withStateExcluded(before, '/.wiggum')).toBe(after);
  });

  test('a state folder deeper in the repository (a vault inside it)', () => {
    expect(withStateExcluded('', '/notes/.wiggum')).toBe(
      "# wiggum's state (its config.yaml is yours to commit)\n/notes/.wiggum/*\n!/notes/.wiggum/config.yaml\n",
    );
  });
});
