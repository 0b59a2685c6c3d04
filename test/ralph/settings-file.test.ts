import { describe, expect, test } from 'vitest';
import { isWiggumError } from '../../src/errors.js';
import { recordedSettings, withSettings } from '../../src/ralph/settings-file.js';
import { parseTask } from '../../src/task/parse.js';

const FILE = '/repo/.wiggum/ralph/c1.md';

describe('withSettings: the settings written into the loop file, every other byte kept', () => {
  test.each([
    [
      'a new loop file gets the keys before the closing ---',
      '---\nid: c1\nworkdir: .\n---\ngo\n',
      { harness: 'keeper', maxIterations: 6, completionPromise: 'SHIPPED', failFast: true },
      '---\nid: c1\nworkdir: .\nharness: keeper\nmax_iterations: 6\ncompletion_promise: "SHIPPED"\nfail_fast: true\n---\ngo\n',
    ],
    [
      'a recorded key is replaced where it stands, comments and the checkpoint untouched',
      '---\nid: c1\nharness: alpha # the first agent\nmax_iterations: 5\npersistence_loop:\n  status: interrupted\n  iteration: 1\n  max_iterations: 5\n---\ngo\n',
      { harness: 'beta' },
      '---\nid: c1\nharness: beta\nmax_iterations: 5\npersistence_loop:\n  status: interrupted\n  iteration: 1\n  max_iterations: 5\n---\ngo\n',
    ],
    [
      'a promise the user rewrote as a block scalar is replaced whole',
      '---\nid: c1\ncompletion_promise: >-\n  ALL\n  DONE\nworkdir: .\n---\ngo\n',
      { completionPromise: 'SHIPPED' },
      '---\nid: c1\ncompletion_promise: "SHIPPED"\nworkdir: .\n---\ngo\n',
    ],
    [
      'CRLF files get CRLF lines',
      '---\r\nid: c1\r\n---\r\ngo\r\n',
      { harness: 'keeper' },
      '---\r\nid: c1\r\nharness: keeper\r\n---\r\ngo\r\n',
    ],
    [
      'nothing to write: the text as it was',
      '---\nid: c1\nharness: keeper\n---\ngo\n',
      {},
      '---\nid: c1\nharness: keeper\n---\ngo\n',
    ],
    [
      'a promise with quotes and a colon stays text',
      '---\nid: c1\n---\ngo\n',
      { completionPromise: 'say "yes": done' },
      '---\nid: c1\ncompletion_promise: "say \\"yes\\": done"\n---\ngo\n',
    ],
  ])('%s', (_what, text, settings, expected) => {
    expect(withSettings(FILE, text, settings)).toBe(expected);
  });

  test('the written settings read back as recorded', () => {
    const text = withSettings(FILE, '---\nid: c1\n---\ngo\n', {
      harness: 'keeper',
      maxIterations: 6,
      completionPromise: 'say "yes": done',
      failFast: true,
    });
    const parsed = parseTask(FILE, text);
    if (!parsed.ok) throw new Error('does not parse');
    expect(recordedSettings(parsed.task.frontmatter, FILE)).toEqual({
      harness: 'keeper',
      maxIterations: 6,
      completionPromise: 'say "yes": done',
      failFast: true,
    });
  });

  test.each([
    ['a promise with angle brackets', { completionPromise: '<promise>X</promise>' }, 'completion_promise'],
    ['more iterations than a task may have', { maxIterations: 20_000 }, 'max_iterations'],
  ])('%s is E_USAGE naming the key, and nothing is returned to write', (_what, settings, key) => {
    let thrown: unknown;
    try {
      withSettings(FILE, '---\nid: c1\n---\ngo\n', settings);
    } catch (error) {
      thrown = error;
    }
    expect(isWiggumError(thrown, 'E_USAGE')).toBe(true);
    expect((thrown as Error).message).toContain(key);
  });
});

describe('recordedSettings', () => {
  test('a fail_fast that is not true or false is E_USAGE, not read as either', () => {
    const parsed = parseTask(FILE, '---\nid: c1\nfail_fast: sometimes\n---\ngo\n');
    if (!parsed.ok) throw new Error('does not parse');
    expect(() => recordedSettings(parsed.task.frontmatter, FILE)).toThrow(/fail_fast must be true or false/);
  });

  test('a loop file from before settings were recorded has none', () => {
    const parsed = parseTask(FILE, '---\nid: c1\ntitle: "go"\nworkdir: .\n---\ngo\n');
    if (!parsed.ok) throw new Error('does not parse');
    expect(recordedSettings(parsed.task.frontmatter, FILE)).toEqual({});
  });
});
