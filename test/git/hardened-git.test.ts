import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { gitState } from '../../src/git/changes.js';
import { HARDENED_GIT, commitLeftovers } from '../../src/git/git.js';
import { landMerge } from '../../src/git/land-merge.js';
import { gitSandboxPlan } from '../../src/git/sandbox-git.js';
import {
  closeOrphanWorktree,
  closeTaskWorktree,
  openTaskWorktree,
  readRepository,
  uncommittedFiles,
} from '../../src/git/worktree.js';
import { GIT_IDENTITY, git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';

/** git with wiggum's hardening: the test's own reads once something is planted. */
const safe = (dir: string, ...args: string[]): string => git(dir, ...HARDENED_GIT, ...args);

const HOOKS = [
  'pre-commit',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'post-merge',
  'post-rewrite',
  'reference-transaction',
  'post-index-change',
  'pre-auto-gc',
];

/** A script that appends its name and arguments to `marker`; `name` is where it goes. */
function plant(file: string, marker: string): void {
  writeFileSync(file, `#!/bin/sh\necho "$(basename "$0") $*" >> ${marker}\ncat\n`);
  chmodSync(file, 0o755);
}

/** Hooks, core.fsmonitor and a filter planted in `gitDir` (as an earlier, unconfined run could have). */
function plantAll(gitDir: string, marker: string): void {
  mkdirSync(join(gitDir, 'hooks'), { recursive: true });
  for (const name of HOOKS) plant(join(gitDir, 'hooks', name), marker);
  plant(join(gitDir, 'fsmonitor-hook'), marker);
  plant(join(gitDir, 'clean-filter'), marker);
  git(gitDir, '--git-dir', gitDir, 'config', 'core.fsmonitor', join(gitDir, 'fsmonitor-hook'));
  git(gitDir, '--git-dir', gitDir, 'config', 'filter.evil.clean', join(gitDir, 'clean-filter'));
}

function ran(marker: string): string {
  return existsSync(marker) ? readFileSync(marker, 'utf8') : '';
}

async function open(repo: string) {
  return openTaskWorktree({
    repository: await readRepository(repo),
    taskId: 'a',
    branch: 'ralph/a',
    base: 'main',
    worktreesRoot: join(tempDir('wiggum-vault-'), 'worktrees'),
  });
}

describe("wiggum's own git runs no planted hook or fsmonitor", () => {
  test('worktree add, status, auto-commit, the end of a run, land merge and worktree remove', async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const marker = join(tempDir('wiggum-marker-'), 'ran.log');
    plantAll(join(repo, '.git'), marker);
    const wt = await open(repo);
    writeFileSync(join(wt.path, 'left.txt'), 'left over\n');
    expect((await gitState(wt.workdir)).dirty).toEqual(['left.txt']);
    expect(await commitLeftovers(wt.workdir, 'leftovers')).not.toBeNull();

    // A run's end: the agent's commit in its private objects, its branch in its private folder.
    const plan = await gitSandboxPlan(wt, tempDir('wiggum-run-'));
    const privateObjects = plan.mounts.find((mount) => mount.kind === 'rw' && mount.target.endsWith('/objects'));
    if (privateObjects?.kind !== 'rw') throw new Error('no private objects folder in the plan');
    const commit = execFileSync('git', [...HARDENED_GIT, 'commit-tree', '-p', 'HEAD', '-m', 'agent', 'HEAD^{tree}'], {
      cwd: repo,
      encoding: 'utf8',
      env: {
        ...process.env,
        ...GIT_IDENTITY,
        GIT_OBJECT_DIRECTORY: privateObjects.source,
        GIT_ALTERNATE_OBJECT_DIRECTORIES: join(repo, '.git', 'objects'),
        GIT_DIR: wt.gitDir,
      },
    }).trim();
    writeFileSync(join(privateObjects.source, '..', 'refs', 'a'), `${commit}\n`);
    expect((await plan.afterRun()).branch).toMatchObject({ kind: 'moved', to: commit });

    const landed = await landMerge({
      repo,
      branch: 'ralph/a',
      base: 'main',
      intentFile: join(tempDir(), 'intent.json'),
    });
    expect(landed).toMatchObject({ kind: 'landed', how: 'ff', followed: [repo] });
    expect(await closeTaskWorktree(repo, wt.path, false)).toEqual({ kind: 'remove' });
    expect(safe(repo, 'show', 'main:left.txt')).toBe('left over');
    expect(ran(marker)).toBe('');
    // The plants are live: git without wiggum's hardening runs them.
    git(repo, 'status');
    expect(ran(marker)).toMatch(/fsmonitor-hook/);
  });

  test("a worktree whose .git file names the agent's own git dir: wiggum's git there uses the real one", async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const marker = join(tempDir('wiggum-marker-'), 'ran.log');
    const wt = await open(repo);
    const evil = join(wt.path, '.evil');
    git(wt.path, 'init', '--quiet', '--initial-branch=main', evil);
    plantAll(join(evil, '.git'), marker);
    writeFileSync(join(wt.path, '.gitattributes'), '* filter=evil\n');
    writeFileSync(join(wt.path, '.git'), `gitdir: ${join(evil, '.git')}\n`);
    writeFileSync(join(wt.path, 'README.md'), 'changed\n');

    const state = await gitState(wt.workdir);
    expect(state.head).toBe(safe(repo, 'rev-parse', 'ralph/a'));
    expect(state.dirty).toEqual(expect.arrayContaining(['.gitattributes', 'README.md']));
    expect(await uncommittedFiles(wt.path)).toContain('README.md');
    expect(ran(marker)).toBe('');
    expect(await closeTaskWorktree(repo, wt.path, true)).toMatchObject({ kind: 'keep' });
    expect(readFileSync(join(wt.path, '.git'), 'utf8')).toBe(`gitdir: ${wt.gitDir}\n`);
    expect(ran(marker)).toBe('');
  });

  test("a repository the agent made inside its worktree, with a filter of its own: wiggum's status does not look into it", async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const marker = join(tempDir('wiggum-marker-'), 'ran.log');
    const wt = await open(repo);
    const sub = join(wt.path, 'sub');
    mkdirSync(sub);
    gitRepo(sub, { files: { 'a.txt': 'a\n', '.gitattributes': '* filter=evil\n' } });
    plantAll(join(sub, '.git'), marker);
    git(wt.path, ...HARDENED_GIT, 'add', 'sub');
    git(wt.path, ...HARDENED_GIT, 'commit', '--quiet', '-m', 'a gitlink');
    // Same bytes, another mtime: git must read the file, through the clean filter, to compare it.
    utimesSync(join(sub, 'a.txt'), 1_000_000, 1_000_000);
    await gitState(wt.workdir);
    await uncommittedFiles(wt.path);
    expect(ran(marker)).toBe('');
    // The plant is live: a status that looks into submodules runs the filter.
    git(wt.path, '-c', 'core.fsmonitor=false', 'status');
    expect(ran(marker)).toMatch(/clean-filter/);
  });

  test('an orphan worktree whose .git names a git dir inside a worktree is left alone', async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const marker = join(tempDir('wiggum-marker-'), 'ran.log');
    const wt = await open(repo);
    const fake = join(wt.path, 'fake');
    git(wt.path, 'init', '--quiet', '--bare', fake);
    mkdirSync(join(fake, 'worktrees', 'a'), { recursive: true });
    writeFileSync(join(fake, 'worktrees', 'a', 'gitdir'), `${join(wt.path, '.git')}\n`);
    plantAll(fake, marker);
    writeFileSync(join(wt.path, '.git'), `gitdir: ${join(fake, 'worktrees', 'a')}\n`);
    expect(await closeOrphanWorktree(wt.path, false)).toBeNull();
    writeFileSync(join(wt.path, '.git'), `gitdir: ${wt.gitDir}\n`);
    expect(await closeOrphanWorktree(wt.path, false)).toMatchObject({ kind: 'keep', why: 'uncommitted' });
    expect(ran(marker)).toBe('');
  });
});
