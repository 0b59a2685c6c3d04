import { describe, expect, test } from 'vitest';
import { chooseHarness } from '../../src/task/harness-choice.js';
import { parseTask } from '../../src/task/parse.js';
import { waitReasonOf } from '../../src/task/readiness.js';

describe('chooseHarness: a flag, else the task, else the configured default; never an implicit agent', () => {
  test.each([
    ['the flag wins', 'codex', 'claude', 'demo', { name: 'codex', from: 'flag' }],
    ['then the task', undefined, 'claude', 'demo', { name: 'claude', from: 'task' }],
    ['then the default', undefined, undefined, 'demo', { name: 'demo', from: 'default' }],
    ['none: null, not the demo', undefined, undefined, null, null],
    ['an empty flag is no flag', '', undefined, null, null],
    ['an empty task value is none', undefined, '', 'gemini', { name: 'gemini', from: 'default' }],
  ] as const)('%s', (_what, flag, task, defaultName, expected) => {
    expect(chooseHarness(flag, task, defaultName)).toEqual(expected);
  });
});

describe('waitReasonOf: why a file in Approved/ does not run', () => {
  const reason = (text: string, defaultName: string | null): string | null =>
    waitReasonOf(text, parseTask('/v/Approved/t.md', text), defaultName);
  test.each([
    ['an empty file', '', 'demo', 'empty'],
    ['white space only', '  \n\n\t\n', 'demo', 'empty'],
    ['a task naming its harness', '---\nharness: claude\n---\nbody\n', null, null],
    ['a task naming none, no default', '---\ntitle: x\n---\nbody\n', null, 'no-harness'],
    ['a plain note, no default', 'just a note\n', null, 'no-harness'],
    ['a task naming none, with a default', '---\ntitle: x\n---\nbody\n', 'demo', null],
    ['a file that does not parse: for the caller to judge', '---\ntitle: [unclosed\n---\n', null, null],
  ] as const)('%s', (_what, text, defaultName, expected) => {
    expect(reason(text, defaultName)).toBe(expected);
  });
});
