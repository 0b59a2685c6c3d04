import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';

/**
 * No command loses a task file: every command, aimed at a task in Approved/, Done/ and Rejected/ by
 * its id, its file name and its path, leaves the text of every task somewhere in the vault. (Before,
 * `wiggum run Done/x.md` "moved" the file onto itself and deleted it.)
 */

const BODY = (name: string): string => `# ${name}\n\nUnique text of ${name}.\n\n- [ ] US-001 One\n- [ ] US-002 Two\n`;
const TASKS = { approved: 'keep a', done: 'keep d', rejected: 'keep r' } as const;
const FOLDER = { approved: 'Approved', done: 'Done', rejected: 'Rejected' } as const;

const COMMANDS: [string, (ref: string) => string[]][] = [
  ['run', (ref) => ['run', ref, '--no-stream']],
  ['retry', (ref) => ['retry', ref]],
  ['retry --fresh', (ref) => ['retry', ref, '--fresh']],
  ['stop', (ref) => ['stop', ref]],
  ['resume', (ref) => ['resume', ref]],
  ['context add', (ref) => ['context', 'add', ref, 'a note']],
  ['context clear', (ref) => ['context', 'clear', ref]],
  ['validate', (ref) => ['validate', ref]],
  ['status', (ref) => ['status', ref]],
];

let template = '';

beforeAll(async () => {
  // Real endings: one task run to Done/, one rejected at its iteration bound.
  template = mkdtempSync(join(tmpdir(), 'wiggum-keep-'));
  const vault = await makeVault({ root: template, fake: { FAKE_STORY_PER_RUN: '1' } });
  for (const name of Object.values(TASKS)) vault.task(name, `---\ntitle: ${name}\n---\n${BODY(name)}`);
  expect((await runCli(['run', 'Approved/keep d.md', '--no-stream'], { cwd: vault.root })).code).toBe(0);
  expect(
    (await runCli(['run', 'Approved/keep r.md', '--max-iterations', '1', '--no-stream'], { cwd: vault.root })).code,
  ).toBe(1);
  expect(readdirSync(vault.layout.done)).toEqual(['keep d.md']);
  expect(readdirSync(vault.layout.rejected)).toEqual(['keep r.md']);
});

afterAll(() => rmSync(template, { recursive: true, force: true }));

/** Every `.md` text in the vault's three folders. */
function taskTexts(root: string): string[] {
  return Object.values(FOLDER).flatMap((folder) =>
    readdirSync(join(root, folder))
      .filter((name) => name.endsWith('.md'))
      .map((name) => readFileSync(join(root, folder, name), 'utf8')),
  );
}

describe('no command loses a task file', () => {
  test.each(COMMANDS)('%s, on a task in each folder, by id, name and path', async (_, args) => {
    const cases = (Object.keys(TASKS) as (keyof typeof TASKS)[]).flatMap((where) => {
      const name = TASKS[where];
      return [name.replace(' ', '-'), name, `${FOLDER[where]}/${name}.md`].map((ref) => ({ where, ref }));
    });
    // Each case gets its own copy of the vault, so every command meets every task where it was left.
    const results = await Promise.all(
      cases.map(async ({ where, ref }) => {
        const root = join(tempDir(), 'vault');
        cpSync(template, root, { recursive: true });
        const result = await runCli(args(ref), { cwd: root });
        const texts = taskTexts(root);
        const lost = Object.values(TASKS).filter((name) => !texts.some((text) => text.includes(BODY(name))));
        return { where, ref, code: result.code, stderr: result.stderr, lost };
      }),
    );
    expect(results.filter((result) => result.lost.length > 0)).toEqual([]);
    // Nor is a stack trace an answer: a refusal is one message.
    for (const result of results) expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  test('run refuses a task in Done/ or Rejected/ (exit 2) and says how to run it again', async () => {
    const root = join(tempDir(), 'vault');
    cpSync(template, root, { recursive: true });
    const done = await runCli(['run', join(root, 'Done', 'keep d.md'), '--no-stream']);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain(
      'Done/keep d.md is in Done/: it is done. wiggum retry "keep d" sends it back to Approved/',
    );
    const rejected = await runCli(['run', 'Rejected/keep r.md', '--no-stream'], { cwd: root });
    expect(rejected.code).toBe(2);
    expect(rejected.stderr).toContain(
      'Rejected/keep r.md is in Rejected/: its run has ended. wiggum retry "keep r" sends it back to Approved/',
    );
    const help = await runCli(['run', '--help']);
    expect(help.stdout).toContain('A task in Done/ or Rejected/ is refused (exit 2)');
  });

  test('run refuses a task that waits on a person in Blocked/ or Review/ (exit 2), by id or by path, and runs nothing', async () => {
    const root = join(tempDir(), 'vault');
    cpSync(template, root, { recursive: true });
    for (const folder of ['Blocked', 'Review']) mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, 'Blocked', 'asks.md'), '---\ntitle: asks\n---\nDo it.\n');
    writeFileSync(join(root, 'Review', 'waits.md'), '---\ntitle: waits\n---\nDo it.\n');
    const blocked = await runCli(['run', 'asks', '--vault', root, '--no-stream']);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toContain('Blocked/asks.md is in Blocked/: its agent asked a question. Answer it');
    const review = await runCli(['run', join(root, 'Review', 'waits.md'), '--no-stream']);
    expect(review.code).toBe(2);
    expect(review.stderr).toContain(
      'Review/waits.md is in Review/: complete, waiting for a person. wiggum approve waits',
    );
    expect(existsSync(join(root, '.wiggum', 'sessions', 'asks'))).toBe(false);
    expect(existsSync(join(root, '.wiggum', 'sessions', 'waits'))).toBe(false);
  });
});
