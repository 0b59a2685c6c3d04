import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { gitState } from '../../src/git/changes.js';
import { HARDENED_GIT } from '../../src/git/git.js';
import { gitSandboxPlan } from '../../src/git/sandbox-git.js';
import { openTaskWorktree, readRepository } from '../../src/git/worktree.js';
import type { TaskWorktree } from '../../src/git/worktree.js';
import { git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';
import { BWRAP_WORKS, inSandbox } from './git-bwrap.js';

/** git with wiggum's own hardening: for the test's reads once hooks and fsmonitor are planted. */
const safe = (dir: string, ...args: string[]): string => git(dir, ...HARDENED_GIT, ...args);

async function taskWorktree(branch = 'ralph/a'): Promise<{ repo: string; wt: TaskWorktree }> {
  const repo = gitRepo(tempDir('wiggum-user-'));
  git(repo, 'branch', 'ralph/other');
  const wt = await openTaskWorktree({
    repository: await readRepository(repo),
    taskId: 'a',
    branch,
    base: 'main',
    worktreesRoot: join(tempDir('wiggum-vault-'), 'worktrees'),
  });
  return { repo, wt };
}

/** One run of `script` in the sandbox the plan describes; returns the run's output and its end. */
async function run(wt: TaskWorktree, script: string) {
  const plan = await gitSandboxPlan(wt, tempDir('wiggum-run-'));
  const ran = inSandbox({ cwd: wt.workdir, writable: [wt.path], mounts: plan.mounts, env: plan.env }, script);
  return { ...ran, end: await plan.afterRun() };
}

/** `step NAME command…`: prints `NAME rc=N`, so that each attempt is seen to have run. */
const STEP = 'step() { n=$1; shift; "$@" >/dev/null 2>&1; echo "$n rc=$?"; };';

describe.skipIf(!BWRAP_WORKS)("a confined agent and its worktree's shared .git", () => {
  test('commits on its branch; the end of the run moves the real branch, with objects named by their bytes', async () => {
    const { repo, wt } = await taskWorktree();
    const before = git(repo, 'rev-parse', 'ralph/a');
    const ran = await run(
      wt,
      'echo work > work.txt && git add work.txt && git commit -qm "agent work" && git log -1 --format=%s',
    );
    expect(ran.output.trim()).toBe('agent work');
    expect(ran.end.branch).toMatchObject({ kind: 'moved', from: before });
    expect(git(repo, 'log', '-1', '--format=%s', 'ralph/a')).toBe('agent work');
    expect(git(repo, 'show', 'ralph/a:work.txt')).toBe('work');
    git(repo, 'fsck', '--strict', '--no-dangling');
    expect(await gitState(wt.workdir)).toEqual({ head: git(repo, 'rev-parse', 'ralph/a'), dirty: [] });
    // A second run sees the first one's commit (now among the real objects) and builds on it.
    const again = await run(wt, 'echo more >> work.txt && git commit -qam "more work"');
    expect(again.end.branch.kind).toBe('moved');
    expect(git(repo, 'log', '--format=%s', 'main..ralph/a').split('\n')).toEqual(['more work', 'agent work']);
  });

  test("cannot write the config, hooks, info/, its worktree's own git files, nor another branch", async () => {
    const { repo, wt } = await taskWorktree();
    const [C, G] = [wt.commonDir, wt.gitDir];
    const refs = { main: git(repo, 'rev-parse', 'main'), other: git(repo, 'rev-parse', 'ralph/other') };
    const blob = git(repo, 'rev-parse', 'main:README.md');
    const script = [
      STEP,
      `step hook sh -c 'echo "#!/bin/sh" > ${C}/hooks/post-commit'`,
      `step fsmonitor git config core.fsmonitor /bin/true`,
      `step attributes sh -c 'echo "* filter=evil" > ${C}/info/attributes'`,
      `step config-worktree sh -c 'echo "[core] fsmonitor = /bin/true" > ${G}/config.worktree'`,
      `step commondir sh -c 'echo /tmp > ${G}/commondir'`,
      `step gitdir sh -c 'echo /tmp/x > ${G}/gitdir'`,
      `step main git update-ref refs/heads/main HEAD`,
      `step packed sh -c 'echo > ${C}/packed-refs'`,
      `step real-object rm -f ${C}/objects/wiggum-real-objects/${REAL(blob)}`,
      // Accepted in the private folder, and dropped at the run's end:
      `step sibling git update-ref refs/heads/ralph/other HEAD~0`,
      `step commit sh -c 'echo w > w.txt && git add w.txt && git commit -qm w'`,
    ].join('\n');
    const ran = await run(wt, script);
    for (const name of [
      'hook',
      'fsmonitor',
      'attributes',
      'config-worktree',
      'commondir',
      'gitdir',
      'main',
      'packed',
      'real-object',
    ])
      expect(ran.output).toMatch(new RegExp(`^${name} rc=[1-9]`, 'm'));
    expect(ran.output).toMatch(/^commit rc=0/m);
    expect(ran.end.branch.kind).toBe('moved');
    expect(existsSync(join(C, 'hooks', 'post-commit'))).toBe(false);
    expect(() => git(repo, 'config', '--get', 'core.fsmonitor')).toThrow();
    expect(readFileSync(join(G, 'commondir'), 'utf8').trim()).toBe('../..');
    expect(readFileSync(join(G, 'config.worktree'), 'utf8')).toBe('');
    expect(git(repo, 'rev-parse', 'main', 'ralph/other').split('\n')).toEqual([refs.main, refs.other]);
    expect(git(repo, 'cat-file', 'blob', blob)).toBe('# project');
  }, 60_000);

  test('an object written under the name of an existing one does not replace it', async () => {
    const { repo, wt } = await taskWorktree();
    const blob = git(repo, 'rev-parse', 'main:README.md');
    // The agent's own copy of the README's object holds other bytes; then it commits.
    const script = [
      'o=$(git rev-parse --git-common-dir)/objects',
      'e=$(echo evil | git hash-object -w --stdin)',
      `mkdir -p $o/${blob.slice(0, 2)} && cp $o/$(echo $e | cut -c1-2)/$(echo $e | cut -c3-) $o/${REAL(blob)}`,
      'echo x > x.txt && git add x.txt && git commit -qm x',
    ].join(' && ');
    const ran = await run(wt, script);
    expect(ran.end.branch.kind).toBe('moved');
    expect(git(repo, 'cat-file', 'blob', blob)).toBe('# project');
    git(repo, 'fsck', '--strict', '--no-dangling');
  });

  test('a branch at the top of refs/heads/, and one only in packed-refs: the agent sees the others and moves only its own', async () => {
    const { repo, wt } = await taskWorktree('solo');
    git(repo, 'pack-refs', '--all');
    const main = git(repo, 'rev-parse', 'main');
    const ran = await run(
      wt,
      'git rev-parse -q --verify main >/dev/null && git rev-parse -q --verify ralph/other >/dev/null && echo x > x.txt && git add x.txt && git commit -qm x && git update-ref refs/heads/main HEAD 2>&1; echo rc=$?',
    );
    expect(ran.output.trim()).toBe('rc=0');
    expect(ran.end.branch.kind).toBe('moved');
    expect(git(repo, 'log', '-1', '--format=%s', 'solo')).toBe('x');
    expect(git(repo, 'rev-parse', 'main')).toBe(main);
  });

  test('a HEAD pointed elsewhere and a rewritten .git are put back; a branch made a symbolic ref stays', async () => {
    const { repo, wt } = await taskWorktree();
    const before = git(repo, 'rev-parse', 'ralph/a');
    const ran = await run(
      wt,
      `git symbolic-ref refs/heads/ralph/a refs/heads/main; git checkout -q --detach; echo "gitdir: /tmp" > ${wt.path}/.git`,
    );
    expect(ran.end.branch).toMatchObject({ kind: 'refused', why: 'symbolic' });
    expect(ran.end.restored.sort()).toEqual(['.git', 'HEAD']);
    expect(git(repo, 'rev-parse', 'ralph/a')).toBe(before);
    expect(safe(wt.path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/ralph/a');
  });
});

/** An object's loose path below objects/. */
function REAL(name: string): string {
  return `${name.slice(0, 2)}/${name.slice(2)}`;
}

describe('the git dirs of a worktree are prepared before the run', () => {
  test('config.worktree exists, empty, so that it can be read-only', async () => {
    const { wt } = await taskWorktree();
    const plan = await gitSandboxPlan(wt, tempDir('wiggum-run-'));
    expect(readFileSync(join(wt.gitDir, 'config.worktree'), 'utf8')).toBe('');
    expect(plan.mounts[0]).toEqual({ kind: 'ro', source: wt.commonDir, target: wt.commonDir });
    mkdirSync(join(wt.path, 'x'));
    writeFileSync(join(wt.path, 'x', 'y'), '');
    expect((await plan.afterRun()).branch).toEqual({ kind: 'unchanged' });
  });
});
