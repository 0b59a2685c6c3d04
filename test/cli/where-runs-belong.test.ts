import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../helpers/child.js';
import { git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';
import { FAKE_AGENT } from '../helpers/vault.js';

const TASK = '---\ntitle: Loose\nharness: demo\n---\n# Loose\n\nDo the thing.\n';

/** A repository whose `.wiggum/config.yaml` makes the fake agent (completing at once) its only harness. */
function repo(): string {
  const root = gitRepo();
  mkdirSync(join(root, '.wiggum'));
  writeFileSync(
    join(root, '.wiggum', 'config.yaml'),
    stringify({
      harness: { default: 'repoagent' },
      harnesses: { repoagent: { kind: 'command', command: FAKE_AGENT, env: { FAKE_COMPLETE_AFTER: '1' } } },
    }),
  );
  return root;
}

describe('wiggum run runs only a task inside a vault', () => {
  test('a loose file outside any vault: exit 2 naming wiggum init, nothing created, the file left', async () => {
    const notes = tempDir('wiggum-notes-');
    writeFileSync(join(notes, 'loose.md'), TASK);
    const result = await runCli(['run', 'loose.md', '--no-stream'], { cwd: notes });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('loose.md is not inside a vault');
    expect(result.stderr).toContain('wiggum init DIR makes a vault');
    expect(readdirSync(notes)).toEqual(['loose.md']);
  });

  test("a repository's .wiggum/ (ralph's) does not make it a vault for a file below it", async () => {
    const root = repo();
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'note.md'), TASK);
    const result = await runCli(['run', 'note.md', '--no-stream'], { cwd: join(root, 'docs') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not inside a vault');
    expect(existsSync(join(root, 'Done'))).toBe(false);
    expect(existsSync(join(root, 'docs', 'Done'))).toBe(false);
    expect(readdirSync(join(root, '.wiggum'))).toEqual(['config.yaml']);
  });

  test('a vault that renames Approved/ in its config is still found from a file inside it', async () => {
    const root = tempDir('wiggum-vault-');
    for (const folder of ['Inbox', 'Finished', 'Refused', '.wiggum']) mkdirSync(join(root, folder));
    writeFileSync(
      join(root, '.wiggum', 'config.yaml'),
      stringify({ vault: { approved: 'Inbox', done: 'Finished', rejected: 'Refused' } }),
    );
    writeFileSync(join(root, 'Inbox', 'task.md'), TASK);
    const result = await runCli(['run', 'task.md', '--no-stream'], { cwd: join(root, 'Inbox') });
    expect(result.code).toBe(0);
    expect(readdirSync(join(root, 'Finished'))).toEqual(['task.md']);
  });

  test('--vault must be a vault, and the file inside it', async () => {
    const notes = tempDir('wiggum-notes-');
    writeFileSync(join(notes, 'loose.md'), TASK);
    const vault = tempDir('wiggum-vault-');
    mkdirSync(join(vault, 'Approved'));
    const outside = await runCli(['run', join(notes, 'loose.md'), '--vault', vault, '--no-stream']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('not inside a vault');
    const none = await runCli(['run', join(notes, 'loose.md'), '--vault', notes, '--no-stream']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('is not a wiggum vault');
    expect(readdirSync(notes)).toEqual(['loose.md']);
  });
});

describe('wiggum ralph in a repository', () => {
  test("from a subfolder: the repository's .wiggum/ (its config's agent ran, state in its sessions), no second .wiggum/", async () => {
    const root = repo();
    mkdirSync(join(root, 'sub', 'deeper'), { recursive: true });
    const result = await runCli(['ralph', 'Write the notes', '--change', 'deep', '--no-stream'], {
      cwd: join(root, 'sub', 'deeper'),
    });
    expect(result.code).toBe(0);
    expect(existsSync(join(root, '.wiggum', 'sessions', 'deep', 'history.jsonl'))).toBe(true);
    expect(existsSync(join(root, 'sub', '.wiggum'))).toBe(false);
    expect(existsSync(join(root, 'sub', 'deeper', '.wiggum'))).toBe(false);
  });

  test('loops an earlier wiggum kept in a subfolder are pointed out, not silently lost', async () => {
    const root = repo();
    mkdirSync(join(root, 'sub', '.wiggum', 'ralph'), { recursive: true });
    const listed = await runCli(['ralph', '--list'], { cwd: join(root, 'sub') });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain(
      `sub/.wiggum/ralph holds loops an earlier wiggum kept in this subfolder; ralph now keeps loops in ${join(realpathSync(root), '.wiggum')}`,
    );
  });

  test("git sees the user's .wiggum/config.yaml and nothing else wiggum wrote; an old broad exclusion is narrowed", async () => {
    const root = repo();
    const exclude = join(root, '.git', 'info', 'exclude');
    writeFileSync(exclude, "# mine\n*.log\n# wiggum's state\n/.wiggum/\n");
    expect((await runCli(['ralph', 'Write the notes', '--change', 'top', '--no-stream'], { cwd: root })).code).toBe(0);
    expect(git(root, 'status', '--porcelain', '-uall', '--', '.wiggum')).toBe('?? .wiggum/config.yaml');
    expect(readFileSync(exclude, 'utf8')).toBe("# mine\n*.log\n# wiggum's state\n/.wiggum/*\n!/.wiggum/config.yaml\n");
  });

  test('--list, and --status without --change, list the loops with their state', async () => {
    const root = repo();
    expect((await runCli(['ralph', 'Write the notes', '--change', 'notes', '--no-stream'], { cwd: root })).code).toBe(
      0,
    );
    const empty = await runCli(['ralph', '--list'], { cwd: tempDir() });
    expect(empty).toMatchObject({
      code: 0,
      stdout: 'no ralph loops here yet: wiggum ralph "PROMPT" --change ID starts one\n',
    });
    for (const args of [['--list'], ['--status']]) {
      const listed = await runCli(['ralph', ...args], { cwd: join(root) });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/^notes {2}done +iteration 1 of \d+/);
    }
    const json = await runCli(['ralph', '--list', '--json'], { cwd: root });
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ change: 'notes', state: 'done', iteration: 1 }),
    ]);
    const bare = await runCli(['ralph', 'Do it'], { cwd: root });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('ralph needs --change ID');
  });
});
