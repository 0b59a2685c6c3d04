import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { chooseTaskId, withKeptId } from '../../src/memory/kept-id.js';
import type { IdChoice } from '../../src/memory/kept-id.js';
import { parseTask } from '../../src/task/parse.js';
import { tempDir } from '../helpers/temp-dir.js';

const BASE: IdChoice = {
  derived: 'Cafe-creme',
  explicit: false,
  legacy: 'Caf-cr-me',
  checkpointSession: 's-1',
  legacyFolderSession: 's-1',
};

describe('chooseTaskId', () => {
  test.each<[string, Partial<IdChoice>, string]>([
    ['a checkpoint resuming the session in the legacy folder keeps the legacy id', {}, 'Caf-cr-me'],
    ['no checkpoint: the id as spelled now', { checkpointSession: undefined }, 'Cafe-creme'],
    ['the legacy folder belongs to another session', { legacyFolderSession: 's-2' }, 'Cafe-creme'],
    ['no legacy folder', { legacyFolderSession: null }, 'Cafe-creme'],
    ['an id in the frontmatter always wins', { explicit: true, derived: 'mine' }, 'mine'],
    ['an ASCII name: both rules agree', { derived: 'Add-x', legacy: 'Add-x' }, 'Add-x'],
  ])('%s', (_, change, id) => {
    expect(chooseTaskId({ ...BASE, ...change })).toBe(id);
  });
});

describe('withKeptId', () => {
  function setup(sessionInFolder: string | null): { sessions: string; file: string } {
    const root = tempDir('wiggum-kept-id-');
    const sessions = join(root, 'sessions');
    if (sessionInFolder !== null) {
      mkdirSync(join(sessions, 'Caf-cr-me'), { recursive: true });
      const meta = {
        sessionId: sessionInFolder,
        taskId: 'Caf-cr-me',
        taskFile: 'x',
        branchName: null,
        createdAt: '2026-01-01T00:00:00Z',
      };
      writeFileSync(join(sessions, 'Caf-cr-me', 'session.json'), JSON.stringify(meta));
    }
    return { sessions, file: join(root, 'Café crème.md') };
  }
  const checkpointed =
    '---\ntitle: x\npersistence_loop:\n  status: running\n  session: s-1\n  iteration: 2\n  max_iterations: 5\n---\nbody\n';

  function taskOf(file: string, text: string) {
    const parsed = parseTask(file, text);
    if (!parsed.ok) throw new Error('does not parse');
    return parsed.task;
  }

  test('a task an older wiggum started keeps its session folder', () => {
    const { sessions, file } = setup('s-1');
    expect(withKeptId(taskOf(file, checkpointed), sessions).id).toBe('Caf-cr-me');
  });

  test('a new task, or one whose old folder is another session, is spelled in ASCII', () => {
    const { sessions, file } = setup('s-other');
    expect(withKeptId(taskOf(file, checkpointed), sessions).id).toBe('Cafe-creme');
    expect(withKeptId(taskOf(file, '---\ntitle: x\n---\nbody\n'), sessions).id).toBe('Cafe-creme');
    expect(withKeptId(taskOf(file, checkpointed), setup(null).sessions).id).toBe('Cafe-creme');
  });
});
