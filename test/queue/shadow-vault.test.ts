import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import { buildShadowVault, shadowTaskText } from '../../src/queue/shadow-vault.js';
import type { ShadowInput } from '../../src/queue/shadow-vault.js';

const base: ShadowInput = {
  taskId: 'fix-login',
  fileName: 'fix-login.md',
  taskText:
    '---\ntitle: Fix login\nworkdir: /home/me/app\nbase: develop\nland: branch\nnote: "user text ☕"\n---\nMake it work.\n',
  checkpoint: { status: 'queued', session: 's-1', iteration: 2, max_iterations: 9 },
  memory: { prd: '{"userStories":[]}\n', progress: 'learned\n', context: null },
  workdir: '/srv/worker/runs/fix-login/code',
  branch: 'ralph/fix-login',
};

describe('shadowTaskText: the task as a worker runs it', () => {
  test.each<[string, Partial<ShadowInput>, Record<string, unknown>]>([
    [
      "the workdir is the clone, on the task branch, with the checkpoint; base and land are the host's",
      {},
      { workdir: base.workdir, branch: 'ralph/fix-login', id: 'fix-login', base: undefined, land: undefined },
    ],
    ['a task that never ran has no checkpoint', { checkpoint: null }, { persistence_loop: undefined }],
    [
      'a file with CRLF line ends and a BOM',
      { taskText: '\uFEFF---\r\ntitle: T\r\n---\r\nBody\r\n' },
      { title: 'T', workdir: base.workdir },
    ],
    ['a frontmatter of {} (as Obsidian writes it)', { taskText: '---\n{}\n---\nBody\n' }, { id: 'fix-login' }],
    ['no frontmatter at all', { taskText: 'Just a body\n' }, { id: 'fix-login', branch: 'ralph/fix-login' }],
  ])('%s', (_name, change, expected) => {
    const text = shadowTaskText({ ...base, ...change });
    const parsed = parseTask(join('/v/Approved', base.fileName), text);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const fm = parsed.task.frontmatter as Record<string, unknown>;
    for (const [key, value] of Object.entries(expected)) expect(fm[key]).toEqual(value);
    expect(parsed.task.id).toBe('fix-login');
  });

  test("the body and the user's own keys are kept", () => {
    const text = shadowTaskText(base);
    expect(text).toContain('note: "user text ☕"');
    expect(text.endsWith('---\nMake it work.\n')).toBe(true);
    const parsed = parseTask('/v/Approved/fix-login.md', text);
    expect(parsed.ok && parsed.task.frontmatter.persistence_loop?.iteration).toBe(2);
  });
});

describe('buildShadowVault', () => {
  let dir = '';
  afterEach(async () => {
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  test('writes the task into Approved/ and its memory and session into the session folder', async () => {
    dir = await mkdtemp(join(tmpdir(), 'shadow-'));
    const folders = { approved: 'Approved', done: 'Done', rejected: 'Rejected', review: 'Review' };
    const shadow = await buildShadowVault(
      join(dir, 'vault'),
      base,
      { folders, dashboard: null },
      '2026-01-01T00:00:00Z',
    );
    expect(shadow.file).toBe(join(dir, 'vault', 'Approved', 'fix-login.md'));
    const session = join(shadow.layout.sessions, 'fix-login');
    expect(JSON.parse(await readFile(join(session, 'session.json'), 'utf8'))).toMatchObject({
      sessionId: 's-1',
      taskId: 'fix-login',
      branchName: 'ralph/fix-login',
    });
    expect(await readFile(join(session, 'progress.txt'), 'utf8')).toBe('learned\n');
    await expect(readFile(join(session, 'context.md'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
