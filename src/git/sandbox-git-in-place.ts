import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Mount } from '../sandbox/mount.js';
import { gitSandboxEnv } from './sandbox-git-plan.js';
import type { GitSandboxPlan } from './sandbox-git-plan.js';

/** What git reads configuration or code from in a repository's own `.git`: shown read-only. */
const GUARDED = ['config', 'hooks', 'info', 'modules', 'worktrees'];

/** Folders made (empty) when missing, so that the agent cannot be the one to make them: git looks there by default. */
const MADE = ['hooks', 'info'];

/**
 * Files that, once there, make git read its configuration from elsewhere (`commondir` points a
 * `.git` at another folder's config and hooks; `config.worktree` is read with
 * extensions.worktreeConfig): nothing can be mounted where a file does not exist without making
 * it, so one the agent made is removed after the run, before any git of wiggum's runs there.
 */
const PLANTABLE = ['commondir', 'config.worktree'];

/**
 * The git plan of a run in a repository's own checkout (wiggum ralph, gitDir = commonDir): the
 * agent commits there, as it would unconfined, so `.git` is writable (objects, refs, the index,
 * HEAD, the lock files git makes beside them) but its config, hooks, info, submodules' git dirs
 * and other worktrees' git dirs, which are read-only; what it planted is removed after.
 */
export async function inPlaceGitPlan(commonDir: string): Promise<GitSandboxPlan> {
  for (const folder of MADE) await mkdir(join(commonDir, folder), { recursive: true });
  const absent = PLANTABLE.filter((name) => !existsSync(join(commonDir, name)));
  const guarded = GUARDED.map((name) => join(commonDir, name)).filter((path) => existsSync(path));
  const mounts: Mount[] = [
    { kind: 'rw', source: commonDir, target: commonDir },
    ...guarded.map((path): Mount => ({ kind: 'ro', source: path, target: path })),
  ];
  return {
    mounts,
    recovered: [],
    env: gitSandboxEnv(),
    afterRun: async () => {
      const restored: string[] = [];
      for (const name of absent) {
        const planted = join(commonDir, name);
        if (!existsSync(planted)) continue;
        await rm(planted, { recursive: true, force: true });
        restored.push(`.git/${name}`);
      }
      return { branch: { kind: 'unchanged' }, restored };
    },
  };
}
