import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { addToContextInbox, contextInboxFor, parseInbox, takeContextInbox } from '../../src/memory/context-inbox.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('context added from inside a task run', () => {
  const session = '/v/.wiggum/sessions/t1/context.md';
  const copy = '/v/.wiggum/sandbox/t1/memory/context.md';
  test.each([
    [
      'the task own confined run: the inbox beside its copy',
      { WIGGUM_TASK_ID: 't1', WIGGUM_CONTEXT: copy },
      '/v/.wiggum/sandbox/t1/memory/context.add',
    ],
    ['an unconfined run (told the session own): the session', { WIGGUM_TASK_ID: 't1', WIGGUM_CONTEXT: session }, null],
    ["another task's run: the session", { WIGGUM_TASK_ID: 't2', WIGGUM_CONTEXT: copy }, null],
    ['a person at a terminal: the session', {}, null],
    ['an empty variable: the session', { WIGGUM_TASK_ID: 't1', WIGGUM_CONTEXT: '' }, null],
  ])('%s', (_name, env, expected) => {
    expect(contextInboxFor(env, 't1', session)).toBe(expected);
  });

  test('the inbox keeps several texts, lines and all, in order; foreign lines are skipped', () => {
    expect(parseInbox('"one"\n"two\\nlines"\nnot json\n{"a":1}\n"  "\n')).toEqual(['one', 'two\nlines']);
  });

  test('taken after the run, it is removed; an inbox past 64 KiB is dropped unread', async () => {
    const dir = tempDir('wiggum-inbox-');
    await addToContextInbox(join(dir, 'context.add'), 'use pnpm');
    await addToContextInbox(join(dir, 'context.add'), 'and\nnode 20');
    expect(await takeContextInbox(dir)).toEqual(['use pnpm', 'and\nnode 20']);
    expect(await takeContextInbox(dir)).toEqual([]);
    writeFileSync(join(dir, 'context.add'), `${JSON.stringify('y'.repeat(70 * 1024))}\n`);
    expect(await takeContextInbox(dir)).toEqual([]);
  });
});
