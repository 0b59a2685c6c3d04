import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';

const TASK = '---\ntitle: Fix the login bug\n---\n- [ ] US-001 One\n';

/** A vault with `Approved/Fix login bug.md` (id Fix-login-bug), `Deploy.md` and `deploy.md`. */
async function namesVault(): Promise<TestVault> {
  const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
  vault.task('Fix login bug', TASK);
  vault.task('Deploy', TASK);
  vault.task('deploy', TASK);
  return vault;
}

function stopFlags(vault: TestVault): string[] {
  return readdirSync(vault.layout.approved).filter((name) => name.endsWith('.stop'));
}

describe('commands take a task by id, file name or path', () => {
  test.each([
    'Fix-login-bug',
    'Fix login bug',
    'Fix login bug.md',
    'Approved/Fix login bug.md',
    'FIX-LOGIN-BUG',
    'fix login bug',
  ])('%j: status, stop, resume and context reach Fix login bug.md', async (ref) => {
    const vault = await namesVault();
    const cwd = vault.root;
    const status = await runCli(['status', ref], { cwd });
    expect(status.stderr).toBe('');
    expect(status.stdout).toMatch(/^Fix-login-bug {2}\(Approved\/Fix login bug\.md\)\n/);
    expect((await runCli(['stop', ref], { cwd })).code).toBe(0);
    expect(stopFlags(vault)).toEqual(['Fix login bug.stop']);
    expect((await runCli(['resume', ref], { cwd })).code).toBe(0);
    expect(stopFlags(vault)).toEqual([]);
    expect((await runCli(['context', 'add', ref, 'NOTE'], { cwd })).code).toBe(0);
    expect(readdirSync(vault.layout.sessions)).toEqual(['Fix-login-bug']);
  });

  test('an absolute path, and a vault-relative path with --vault from elsewhere', async () => {
    const vault = await namesVault();
    expect((await runCli(['stop', join(vault.layout.approved, 'Fix login bug.md'), '--vault', vault.root])).code).toBe(
      0,
    );
    expect((await runCli(['resume', 'Approved/Fix login bug.md', '--vault', vault.root])).code).toBe(0);
    expect(stopFlags(vault)).toEqual([]);
  });

  test('an ambiguous name lists every candidate; stop then writes no flag and exits 2', async () => {
    const vault = await namesVault();
    for (const command of [
      ['status', 'DEPLOY'],
      ['stop', 'DEPLOY'],
      ['stop', 'deploy.MD'],
    ]) {
      const result = await runCli([...command, '--vault', vault.root]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'could be any of 2 tasks: Approved/Deploy.md (id Deploy), Approved/deploy.md (id deploy); name one by its exact id or its path',
      );
    }
    expect(stopFlags(vault)).toEqual([]);
    // The exact id is not ambiguous.
    expect((await runCli(['stop', 'deploy', '--vault', vault.root])).code).toBe(0);
    expect(stopFlags(vault)).toEqual(['deploy.stop']);
  });

  test('context for an unknown task is exit 2 and creates no folder', async () => {
    const vault = await namesVault();
    const result = await runCli(['context', 'add', 'no-such-task', 'stray', '--vault', vault.root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('task not found: "no-such-task"');
    expect(existsSync(vault.layout.sessions)).toBe(false);
  });

  test('retry finds a Rejected file whose frontmatter does not parse by its name, and sends it back as it was', async () => {
    const vault = await namesVault();
    const broken = '---\ntitle: [unclosed\n---\nbroken notes\n';
    writeFileSync(join(vault.layout.rejected, 'broken.md'), broken);
    const result = await runCli(['retry', 'broken', '--vault', vault.root]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'broken: Rejected/broken.md → Approved/broken.md\n  it does not parse, so it went back as it was',
    );
    expect(readFileSync(join(vault.layout.approved, 'broken.md'), 'utf8')).toBe(broken);
    expect(existsSync(join(vault.layout.rejected, 'broken.md'))).toBe(false);
  });

  test('retry takes a path, sends back a Done task too, and says where a task in Approved/ is', async () => {
    const vault = await namesVault();
    writeFileSync(join(vault.layout.rejected, 'Old task.md'), TASK);
    writeFileSync(join(vault.layout.done, 'finished.md'), TASK);
    expect((await runCli(['retry', 'Rejected/Old task.md', '--vault', vault.root])).code).toBe(0);
    expect(existsSync(join(vault.layout.approved, 'Old task.md'))).toBe(true);
    const done = await runCli(['retry', 'finished', '--vault', vault.root]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('finished: Done/finished.md → Approved/finished.md');
    expect(existsSync(join(vault.layout.approved, 'finished.md'))).toBe(true);
    const approved = await runCli(['retry', 'Fix login bug', '--vault', vault.root]);
    expect(approved.code).toBe(2);
    expect(approved.stderr).toContain('Approved/Fix login bug.md is in Approved/ already');
  });

  test('an unknown harness name gets "did you mean"', async () => {
    const vault = await namesVault();
    const run = await runCli(['run', 'Approved/Fix login bug.md', '--harness', 'fakee', '--no-stream'], {
      cwd: vault.root,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--harness fakee: no such harness (did you mean fake?)');
    vault.task('typo-harness', '---\ntitle: typo\nharness: cluade\n---\nbody\n');
    const validate = await runCli(['validate', 'Approved/typo-harness.md'], { cwd: vault.root });
    expect(validate.code).toBe(2);
    expect(validate.stdout).toContain('harness: unknown harness "cluade" (did you mean claude?)');
  });

  test('run takes a task name when no such file exists', async () => {
    const vault = await namesVault();
    const result = await runCli(['run', 'Fix login bug', '--no-stream'], { cwd: vault.root });
    expect(result.code).toBe(0);
    expect(existsSync(join(vault.layout.done, 'Fix login bug.md'))).toBe(true);
  });
});
