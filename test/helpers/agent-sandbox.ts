import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { expect } from 'vitest';
import type { IterationRecord } from '../../src/memory/history.js';
import { REPO_ROOT, runCli } from './child.js';
import type { CliResult } from './child.js';
import { fingerprint, gitRepo } from './git-repo.js';
import { historyOf } from './history.js';
import { tempDir } from './temp-dir.js';
import { makeVault } from './vault.js';

/**
 * A sandbox for running a real agent CLI through the built `wiggum run`: a temp dir with `home/`
 * and `tmp/` (for the agent's HOME and TMPDIR), a git repository `code/app` with one commit
 * (`app.txt` = "light mode", message `initial`), and a vault that allows `code/` as workdir and
 * has the agent's harness as the default. wiggum itself gets a bare environment (PATH and HOME),
 * so nothing of the developer's (an API key, a proxy) leaks in.
 */

export interface SandboxPaths {
  /** The agent's HOME. */
  home: string;
  /** The agent's TMPDIR: its scratch files and sockets stay in the test's temp dir. */
  tmp: string;
  /** The task's workdir. */
  repo: string;
}

export interface AgentSandboxOptions {
  /** Prefix of the temp dir, e.g. `wiggum-claude-`. */
  prefix: string;
  /** The harness, made the default; its kind and args come from config/default.yaml (the shipped defaults). */
  harness: string;
  /** Its config entry (command, env), given the sandbox's paths. */
  harnessConfig(paths: SandboxPaths): Record<string, unknown>;
  /** The task `dark-mode`; `WORKDIR` in it stands for the repository. */
  task: string;
  /** More config; only its `persistence_loop` is used, merged over the sandbox's. */
  config?: Record<string, unknown> | undefined;
}

export interface AgentSandbox {
  vaultRoot: string;
  /** The user's working copy: the task works in a worktree of it, on its own branch. */
  repo: string;
  /** The user's working copy as it was before the run (git-repo.ts `fingerprint`). */
  repoBefore: string;
  /** The task file, in Approved/. */
  task: string;
  /** `wiggum run <task>` with the built CLI. */
  run(): Promise<CliResult>;
  /** The task's history.jsonl. */
  history(): IterationRecord[];
  /** Runs wiggum and checks that it exits 0 with the task in Done/. */
  runToDone(): Promise<CliResult>;
  /** Runs wiggum and checks that it exits 1 with the task in Rejected/; gives the rejected task's text. */
  runToRejected(): Promise<string>;
}

export async function agentSandbox(options: AgentSandboxOptions): Promise<AgentSandbox> {
  const base = tempDir(options.prefix);
  const paths: SandboxPaths = { home: join(base, 'home'), tmp: join(base, 'tmp'), repo: join(base, 'code', 'app') };
  for (const dir of [paths.home, paths.tmp, paths.repo]) mkdirSync(dir, { recursive: true });
  gitRepo(paths.repo, { files: { 'app.txt': 'light mode\n' }, message: 'initial' });

  const vault = await makeVault({
    config: {
      vault: { allowed_workdirs: [join(base, 'code')] },
      persistence_loop: {
        max_iterations: 3,
        timeout: { per_step: '60s', idle: '60s' },
        ...(options.config?.['persistence_loop'] as object | undefined),
      },
      harness: { default: options.harness },
      harnesses: { [options.harness]: options.harnessConfig(paths) },
    },
  });
  const task = vault.task('dark-mode', options.task.replace('WORKDIR', paths.repo));
  const env = { PATH: process.env['PATH'] ?? '', HOME: paths.home };
  const run = (): Promise<CliResult> => runCli(['run', task, '--vault', vault.root], { env });
  return {
    vaultRoot: vault.root,
    repo: paths.repo,
    repoBefore: fingerprint(paths.repo),
    task,
    run,
    history: () => historyOf(vault.layout.sessions, 'dark-mode'),
    async runToDone() {
      const result = await run();
      expect(result.code, fail('exit code', result)).toBe(0);
      expect(existsSync(join(vault.root, 'Done', 'dark-mode.md'))).toBe(true);
      return result;
    },
    async runToRejected() {
      const result = await run();
      expect(result.code, fail('exit code', result)).toBe(1);
      const rejected = join(vault.root, 'Rejected', 'dark-mode.md');
      expect(existsSync(rejected)).toBe(true);
      return readFileSync(rejected, 'utf8');
    },
  };
}

/** The branch the task `dark-mode` works on (no `branch:` in it). */
export const DARK_MODE_BRANCH = 'ralph/dark-mode';

/**
 * What the scripted agent of the first test did: one commit on top of `initial`, on the task's
 * branch, that changes app.txt, every story of `prd` passing; the user's working copy (its HEAD,
 * index and files) is as it was, the commit being in the task's worktree only.
 */
export function expectDarkModeCommitted(sandbox: AgentSandbox, prd: string): void {
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: sandbox.repo, encoding: 'utf8' });
  expect(git('log', '--format=%s', DARK_MODE_BRANCH)).toBe('feat: US-001 - Dark mode toggle\ninitial\n');
  expect(git('show', `${DARK_MODE_BRANCH}:app.txt`)).toBe('light mode\ndark mode\n');
  expect(fingerprint(sandbox.repo)).toBe(sandbox.repoBefore);
  expect(readFileSync(join(sandbox.repo, 'app.txt'), 'utf8')).toBe('light mode\n');
  // The path the agent was told: its session's, or (confined) a copy that goes once the task is
  // done; what it wrote is in the session either way.
  const kept = join(sandbox.vaultRoot, '.wiggum', 'sessions', 'dark-mode', 'prd.json');
  const told = existsSync(prd) ? prd : kept;
  expect(JSON.parse(readFileSync(told, 'utf8'))).toMatchObject({ userStories: [{ id: 'US-001', passes: true }] });
  expect(JSON.parse(readFileSync(kept, 'utf8'))).toMatchObject({ userStories: [{ id: 'US-001', passes: true }] });
}

/**
 * Each iteration recorded exactly once: iterations numbered 1..n with no gap or repeat, and each
 * iteration's attempts numbered 0..k likewise, in the order they ran.
 */
export function expectEachIterationOnce(history: IterationRecord[]): void {
  const runs = history.map(({ iteration, attempt }) => [iteration, attempt]);
  const expected = runs.reduce<number[][]>((numbered, [iteration]) => {
    const previous = numbered.at(-1);
    if (previous === undefined) return [[1, 0]];
    const [lastIteration = 0, lastAttempt = 0] = previous;
    return [...numbered, iteration === lastIteration ? [lastIteration, lastAttempt + 1] : [lastIteration + 1, 0]];
  }, []);
  expect(runs).toEqual(expected);
}

/**
 * The task completed, once: the last record completed it (its story passing, the agent's session
 * id a UUID unless the agent names its sessions otherwise) and no record before it ended the task;
 * each iteration is recorded once, and between them the records count the tokens the agent used
 * and app.txt as the one file changed, each once. How many runs that took is the machine's
 * business: a loaded machine may time out a run that did nothing and retry it. Gives the last record.
 */
export function expectCompletedOnce(
  history: IterationRecord[],
  tokens: { input: number; output: number },
  sessionId = /^[0-9a-f-]{36}$/,
): IterationRecord {
  expect(history.length).toBeGreaterThan(0);
  expectEachIterationOnce(history);
  const last = history.at(-1)!;
  expect(last).toMatchObject({
    exitCode: 0,
    outcome: 'complete',
    action: 'done',
    completionFound: true,
    completionAccepted: true,
    storiesPassing: 1,
    storiesTotal: 1,
  });
  expect(last.agentSessionId).toMatch(sessionId);
  for (const earlier of history.slice(0, -1)) expect(['retry', 'continue', 'wait']).toContain(earlier.action);
  const used = history.reduce(
    (sum, record) => ({
      input: sum.input + (record.usage?.inputTokens ?? 0),
      output: sum.output + (record.usage?.outputTokens ?? 0),
    }),
    { input: 0, output: 0 },
  );
  expect(used).toEqual(tokens);
  expect(history.flatMap((record) => record.git?.files ?? [])).toEqual(['app.txt']);
  return last;
}

/** A rate limit or overload (`code`, exit code 1) in the first attempt, retried by wiggum, then done. */
export function expectRetriedThenDone(history: IterationRecord[], code = 'E_HARNESS_RATE_LIMIT'): void {
  expect(history.map((record) => [record.iteration, record.attempt, record.outcome, record.action])).toEqual([
    [1, 0, 'transient', 'retry'],
    [1, 1, 'complete', 'done'],
  ]);
  expect(history[0]?.error?.code).toBe(code);
  expect(history[0]?.exitCode).toBe(1);
}

/** Runs wiggum and checks that a refused key rejected the task at once; gives the rejected task's text. */
export async function runToAuthRejection(sandbox: AgentSandbox): Promise<string> {
  const report = await sandbox.runToRejected();
  expect(report).toContain('E_HARNESS_AUTH');
  expect(sandbox.history().map((record) => [record.outcome, record.action])).toEqual([['hard', 'reject']]);
  return report;
}

/**
 * A real agent CLI of the test-only package test/agent-clis (its own lockfile, kept out of the root
 * `npm ci`); `npm test` installs it with scripts/agent-clis.mjs.
 */
export function agentCli(name: 'claude' | 'codex' | 'gemini' | 'opencode'): string {
  return join(REPO_ROOT, 'test', 'agent-clis', 'node_modules', '.bin', name);
}

/** What to run when an agent CLI of test/agent-clis is missing. */
export const INSTALL_AGENT_CLIS = 'run npm run test:agent-clis (npm test does) to install test/agent-clis';

/** Fails (for a `beforeAll`) unless `command --version` runs; `hint` says what to do. */
export function requireRunnable(command: string, hint: string): void {
  try {
    execFileSync(command, ['--version'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
  } catch (error) {
    throw new Error(`${command} does not run: ${hint}`, { cause: error });
  }
}

/** The prd.json path the prompt names (the agent is told where its memory is; no guessing). */
export function prdPath(prompt: string): string {
  // The step that marks a story names the file; the memory sentence names its folder once.
  const file = /set `"passes": true` in (\S+) and commit/.exec(prompt)?.[1];
  if (file === undefined) throw new Error(`the prompt names no prd.json:\n${prompt}`);
  const folder = /work is in git and `([^`]+)`/.exec(prompt)?.[1];
  return folder === undefined || isAbsolute(file) ? file : join(folder, file);
}

/** A final message with the completion promise over several lines. */
export const PROMISE = 'Everything passes.\n<promise>\n  COMPLETE\n</promise>\n';

/** An assertion message with the run's output. */
function fail(where: string, result: CliResult): string {
  return `${where}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}
