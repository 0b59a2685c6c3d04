import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from './child.js';
import { git } from './git-repo.js';
import { tempDir } from './temp-dir.js';
import type { TestVault } from './vault.js';
import { makeVault } from './vault.js';
import { waitForFile } from './wait.js';

/** The scripted agent of the landing tests (its knobs are described in the script). */
export const LAND_AGENT = join(REPO_ROOT, 'test', 'fixtures', 'agents', 'land-agent.mjs');

/** A vault whose `fake` harness is the landing agent, its records under `records`. */
export interface LandVault extends TestVault {
  /** $LAND_DIR: the agent's records, one folder per task. */
  records: string;
  /** What the agent recorded for task `id` (`prompt.1`, `head.1`, …), '' while absent. */
  record(id: string, name: string): string;
  /** Waits until task `id`'s run `n` has started (its prompt recorded). */
  started(id: string, n?: number): Promise<void>;
  /** Lets task `id`'s gated first run go on (LAND_GATE=1). */
  open(id: string): void;
  /** The task's file in Done/ (or Rejected/), '' while it is not there. */
  ended(id: string, folder?: 'Done' | 'Rejected'): string;
}

/**
 * A vault for landing tests: the repositories' parent folder allowed as a workdir, the landing
 * agent (with `agentEnv`: LAND_GATE, LAND_LINE) as the default harness, and `config` on top.
 */
export async function landVault(
  repo: string,
  agentEnv: Record<string, string> = {},
  config: Record<string, unknown> = {},
): Promise<LandVault> {
  const records = tempDir('wiggum-land-records-');
  const { vault: vaultConfig, sandbox, ...rest } = config as { vault?: object; sandbox?: { writable?: string[] } };
  const vault = await makeVault({
    agent: LAND_AGENT,
    fake: { LAND_DIR: records, ...agentEnv },
    config: {
      vault: { allowed_workdirs: [dirname(repo)], ...vaultConfig },
      // The records are the test's channel to the agent (and its gates): declared writable across its sandbox.
      sandbox: { ...sandbox, writable: [records, ...(sandbox?.writable ?? [])] },
      ...rest,
    },
  });
  const record = (id: string, name: string): string => {
    const file = join(records, id, name);
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  };
  return {
    ...vault,
    records,
    record,
    started: (id, n = 1) => waitForFile(join(records, id, `prompt.${n}`), 60_000),
    open: (id) => writeFileSync(join(records, id, 'go'), ''),
    ended: (id, folder = 'Done') => {
      const file = join(vault.root, folder, `${id}.md`);
      return existsSync(file) ? readFileSync(file, 'utf8') : '';
    },
  };
}

/** A task for the landing agent in `repo`, with more frontmatter in `extra` (`land: merge\n`). */
export function landTask(repo: string, extra = ''): string {
  return `---\ntitle: the work\nworkdir: ${repo}\n${extra}---\n- [ ] US-001 The work\n`;
}

/** One `### ` section of a task's report, up to the next heading. */
export function section(text: string, heading: string): string {
  const start = text.indexOf(`### ${heading}\n`);
  if (start === -1) return '';
  const rest = text.slice(start + heading.length + 5);
  const next = rest.search(/^#{2,3} /m);
  return next === -1 ? rest : rest.slice(0, next);
}

/** Commits `text` as `name` on the branch the user's copy `repo` is on, as the user would. */
export function userCommits(repo: string, name: string, text: string): string {
  writeFileSync(join(repo, name), text);
  git(repo, 'add', name);
  git(repo, 'commit', '--quiet', '-m', `user: ${name}`);
  return git(repo, 'rev-parse', 'HEAD');
}

/** How many worktrees `repo` has, its own working copy included. */
export function worktreeCount(repo: string): number {
  return git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length ?? 0;
}

/** The parents of `ref` in `repo` (two for a merge commit). */
export function parents(repo: string, ref: string): string[] {
  return git(repo, 'rev-list', '--parents', '-n1', ref).split(' ').slice(1);
}
