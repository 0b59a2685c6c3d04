import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import type { IterationRecord } from '../../src/memory/history.js';
import { CLI, killHard, requireBuild, runCli } from '../helpers/child.js';
import { GIT_IDENTITY, git, gitRepo } from '../helpers/git-repo.js';
import { FAKE_AGENT } from '../helpers/vault.js';
import { waitForFile } from '../helpers/wait.js';

interface Repo {
  root: string;
  marks: string;
  gates: string;
  ralph(...args: string[]): ReturnType<typeof runCli>;
  history(change: string): IterationRecord[];
  prompt(run: number): string;
}

/**
 * A git repository with `.wiggum/config.yaml` making the fake agent the default harness. A
 * FAKE_GATE_DIR entry (any value) turns on the gates, in `gates`.
 */
function repo(fake: Record<string, string> = {}, config: Record<string, unknown> = {}): Repo {
  const root = gitRepo();
  const marks = join(root, '..', `${root.split('/').pop() ?? 'x'}-marks`);
  const gates = `${marks}-gates`;
  mkdirSync(marks);
  mkdirSync(gates);
  mkdirSync(join(root, '.wiggum'));
  writeFileSync(
    join(root, '.wiggum', 'config.yaml'),
    stringify({
      harness: { default: 'fake', stop_grace: '500ms' },
      harnesses: {
        fake: {
          kind: 'command',
          command: FAKE_AGENT,
          env: { FAKE_MARK_DIR: marks, ...fake, ...(fake.FAKE_GATE_DIR === undefined ? {} : { FAKE_GATE_DIR: gates }) },
        },
      },
      persistence_loop: { retry: { base_delay: '10ms' } },
      // The fake agent's markers and gates are the test's channels to it, and it commits in place
      // (FAKE_COMMIT): all declared writable across the sandbox, the repository's .git too.
      sandbox: { writable: [marks, gates, join(root, '.git')] },
      ...config,
    }),
  );
  return {
    root,
    marks,
    gates,
    ralph: (...args) => runCli(['ralph', ...args], { cwd: root }),
    history: (change) =>
      readFileSync(join(root, '.wiggum', 'sessions', change, 'history.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as IterationRecord),
    prompt: (run) => readFileSync(join(marks, `run-${run}`), 'utf8'),
  };
}

const TWO_STORIES = 'Tidy the docs\n\n- [ ] US-001 Fix typos\n- [ ] US-002 Add examples\n';

describe('wiggum ralph', () => {
  test('a prompt runs a loop in the repository; its state lives in .wiggum/sessions/<change>/', async () => {
    const r = repo({ FAKE_STORY_PER_RUN: '1' });
    const result = await r.ralph(TWO_STORIES, '--change', 'docs', '--no-stream');
    expect(result.code).toBe(0);
    for (const file of ['prd.json', 'progress.txt', 'context.md', 'history.jsonl', 'session.json']) {
      expect(existsSync(join(r.root, '.wiggum', 'sessions', 'docs', file))).toBe(true);
    }
    expect(existsSync(join(r.root, 'Approved'))).toBe(false);
    expect(r.history('docs').map((h) => h.iteration)).toEqual([1, 2]);
  });

  test('--prompt-file reads the prompt from a file', async () => {
    const r = repo({ FAKE_COMPLETE_AFTER: '1' });
    writeFileSync(join(r.root, 'PROMPT.md'), 'Prompt from a file: rename the module.\n');
    expect((await r.ralph('--prompt-file', 'PROMPT.md', '--change', 'pf', '--no-stream')).code).toBe(0);
    expect(r.prompt(1)).toContain('Prompt from a file: rename the module.');
  });

  test('the preamble states the iteration, and --no-stream still detects a promise wrapped in whitespace', async () => {
    const r = repo({ FAKE_COMPLETE_AFTER: '2', FAKE_PRINT: 'agent chatter\n' });
    const result = await r.ralph('Do it', '--change', 'ws', '--no-stream', '--completion-promise', 'ALL GOOD');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('agent chatter');
    expect(r.prompt(2)).toContain('# Iteration 2 of 100');
    expect(r.history('ws').at(-1)).toMatchObject({ completionFound: true, completionAccepted: true });
  });

  test('context added mid-loop appears in the next prompt under its label; cleared, it is gone', async () => {
    const r = repo({ FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: 'on' });
    const loop = runCli(
      ['ralph', 'Three steps\n\n- [ ] A-1 one\n- [ ] A-2 two\n- [ ] A-3 three\n', '--change', 'ctx', '--no-stream'],
      { cwd: r.root },
    );
    await waitForFile(join(r.marks, 'run-1'));
    const added = await r.ralph('--add-context', 'Use the existing helpers in lib/.', '--change', 'ctx');
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain('context added');
    writeFileSync(join(r.gates, 'go-1'), '');
    await waitForFile(join(r.marks, 'run-2'));
    expect(r.prompt(1)).not.toContain('Additional Context');
    expect(r.prompt(2)).toContain('## Additional Context (added by user mid-loop)');
    expect(r.prompt(2)).toContain('Use the existing helpers in lib/.');
    const cleared = await r.ralph('--clear-context', '--change', 'ctx');
    expect(cleared.stdout).toContain('context cleared');
    writeFileSync(join(r.gates, 'go-2'), '');
    await waitForFile(join(r.marks, 'run-3'));
    expect(r.prompt(3)).not.toContain('Additional Context');
    writeFileSync(join(r.gates, 'go-3'), '');
    expect((await loop).code).toBe(0);
  });

  test('a non-zero harness exit is recorded and the loop goes on; --fail-fast stops with a failing exit code', async () => {
    const r = repo({ FAKE_STATE_FILE: 'fails', FAKE_FAIL_TIMES: '1', FAKE_EXIT_CODE: '4', FAKE_COMPLETE_AFTER: '2' });
    expect((await r.ralph('Go', '--change', 'goes-on', '--no-stream')).code).toBe(0);
    expect(r.history('goes-on').map((h) => [h.exitCode, h.outcome])).toEqual([
      [4, 'nonzero-exit'],
      [0, 'complete'],
    ]);
    const strict = repo({ FAKE_MODE: 'fail', FAKE_EXIT_CODE: '4' });
    const stopped = await strict.ralph('Go', '--change', 'strict', '--no-stream', '--fail-fast');
    expect(stopped.code).toBe(1);
    expect(strict.history('strict')).toHaveLength(1);
  });

  test('--status shows the iteration count and recent outcomes: duration, completion found, exit code', async () => {
    const r = repo({ FAKE_STATE_FILE: 'fails', FAKE_FAIL_TIMES: '1', FAKE_EXIT_CODE: '4', FAKE_COMPLETE_AFTER: '2' });
    await r.ralph('Go', '--change', 'st', '--no-stream');
    const status = await r.ralph('--status', '--change', 'st');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('iterations 2 of 100 done');
    expect(status.stdout).toMatch(/iter\s+try\s+duration\s+promise\s+exit\s+outcome/);
    expect(status.stdout).toMatch(/\n\s+1\s+0\s+\d+\.\ds\s+no\s+4\s+nonzero-exit/);
    expect(status.stdout).toMatch(/\n\s+2\s+0\s+\d+\.\ds\s+yes\s+0\s+complete/);
    const json = JSON.parse((await r.ralph('--status', '--json', '--change', 'st')).stdout) as {
      iterations: number;
      recent: { completionFound: boolean; exitCode: number; durationMs: number }[];
    };
    expect(json.iterations).toBe(2);
    expect(json.recent.map((h) => [h.completionFound, h.exitCode, typeof h.durationMs])).toEqual([
      [false, 4, 'number'],
      [true, 0, 'number'],
    ]);
  });

  test('a restart resumes from the persisted memory (kill -9, then the same command without a prompt)', async () => {
    const r = repo({ FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' });
    requireBuild();
    const child = spawn(process.execPath, [CLI, 'ralph', TWO_STORIES, '--change', 'resume', '--no-stream'], {
      cwd: r.root,
      stdio: 'ignore',
    });
    await waitForFile(join(r.marks, 'run-2'));
    await killHard(child);
    const prd = JSON.parse(readFileSync(join(r.root, '.wiggum', 'sessions', 'resume', 'prd.json'), 'utf8')) as {
      userStories: { passes: boolean }[];
    };
    expect(prd.userStories.map((s) => s.passes)).toEqual([true, false]);
    const again = await r.ralph('--change', 'resume', '--no-stream');
    expect(again.code).toBe(0);
    expect(r.history('resume').map((h) => [h.iteration, h.storiesPassing])).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  test('a corrupted prd.json stops the loop with an error naming the file, and is left as it is', async () => {
    // Unconfined: a confined agent writes a copy of prd.json, absorbed over the session's file after
    // the run, which would hide the corruption written here mid-run (the copy's own check is
    // test/loop's); this test is about the session file as the loop reads it.
    const r = repo({ FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: 'on' }, { sandbox: { mode: 'off' } });
    writeFileSync(join(r.gates, 'go-1'), '');
    const loop = r.ralph(TWO_STORIES, '--change', 'corrupt', '--no-stream');
    await waitForFile(join(r.marks, 'run-2'));
    const prd = join(r.root, '.wiggum', 'sessions', 'corrupt', 'prd.json');
    writeFileSync(prd, '{"userStories": [ {"id": "US-001", "passes": "maybe" ');
    writeFileSync(join(r.gates, 'go-2'), '');
    const result = await loop;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('E_MEMORY_CORRUPT');
    expect(result.stderr).toContain(prd);
    expect(readFileSync(prd, 'utf8')).toBe('{"userStories": [ {"id": "US-001", "passes": "maybe" ');
  });

  test('without a durable backend it runs in memory and says so loudly; a later durable run is durable', async () => {
    const r = repo({ FAKE_STORY_PER_RUN: '1' }, { memory: { backend: 'memory' } });
    const fragile = await r.ralph(TWO_STORIES, '--change', 'mem', '--no-stream');
    expect(fragile.code).toBe(0);
    expect(fragile.stderr).toContain('NOT DURABLE');
    expect(existsSync(join(r.root, '.wiggum', 'sessions', 'mem', 'prd.json'))).toBe(false);

    const config = join(r.root, '.wiggum', 'config.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('backend: memory', 'backend: disk'));
    const durable = await r.ralph(TWO_STORIES, '--change', 'mem2', '--no-stream');
    expect(durable.code).toBe(0);
    expect(durable.stderr).not.toContain('NOT DURABLE');
    expect(existsSync(join(r.root, '.wiggum', 'sessions', 'mem2', 'prd.json'))).toBe(true);
  });

  test('memory.in_workdir: prd.json and progress.txt live in the repository itself, at .ralph/<change>/, and go into the commits', async () => {
    const r = repo({ FAKE_STORY_PER_RUN: '1', FAKE_COMMIT: '1', ...GIT_IDENTITY }, { memory: { in_workdir: true } });
    const result = await r.ralph(TWO_STORIES, '--change', 'docs', '--no-stream');
    expect(result.code).toBe(0);
    // The fake agent commits its code before it marks the story: run 2's commit holds run 1's mark.
    expect(git(r.root, 'ls-files', '.ralph')).toBe('.ralph/docs/prd.json\n.ralph/docs/progress.txt');
    const committed = JSON.parse(git(r.root, 'show', 'HEAD:.ralph/docs/prd.json')) as {
      userStories: { passes: boolean }[];
    };
    expect(committed.userStories.map((story) => story.passes)).toEqual([true, false]);
    // The session folder has the copy of the last run's memory, both stories passing.
    const session = JSON.parse(readFileSync(join(r.root, '.wiggum', 'sessions', 'docs', 'prd.json'), 'utf8')) as {
      userStories: { passes: boolean }[];
    };
    expect(session.userStories.map((story) => story.passes)).toEqual([true, true]);
    expect(readFileSync(join(r.root, '.ralph', 'docs', 'prd.json'), 'utf8')).toBe(
      readFileSync(join(r.root, '.wiggum', 'sessions', 'docs', 'prd.json'), 'utf8'),
    );
  });

  test('a sessions folder that cannot be written falls back to memory with the warning', async () => {
    const r = repo({ FAKE_STORY_PER_RUN: '1' });
    writeFileSync(join(r.root, '.wiggum', 'sessions'), 'a file where the folder should be');
    const result = await r.ralph(TWO_STORIES, '--change', 'nodisk', '--no-stream');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('NOT DURABLE');
  });

  test("--add-context before any loop appends to the change's context file and confirms; --clear-context empties it", async () => {
    const r = repo({ FAKE_COMPLETE_AFTER: '1' });
    const added = await r.ralph('--add-context', 'use pnpm, not npm', '--change', 'early');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('context added for early');
    const file = join(r.root, '.wiggum', 'sessions', 'early', 'context.md');
    expect(readFileSync(file, 'utf8')).toContain('use pnpm, not npm');
    expect((await r.ralph('Go', '--change', 'early', '--no-stream')).code).toBe(0);
    expect(r.prompt(1)).toContain('## Additional Context (added by user mid-loop)');
    expect(r.prompt(1)).toContain('use pnpm, not npm');
    const cleared = await r.ralph('--clear-context', '--change', 'early');
    expect(cleared.stdout).toContain('context cleared for early');
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  test('each iteration records its exit code and the files it changed and committed (git summary)', async () => {
    const r = repo({ FAKE_STORY_PER_RUN: '1', FAKE_COMMIT: '1' });
    expect((await r.ralph(TWO_STORIES, '--change', 'git', '--no-stream')).code).toBe(0);
    const history = r.history('git');
    expect(history.map((h) => h.exitCode)).toEqual([0, 0]);
    for (const h of history) {
      expect(h.git?.filesChanged).toBeGreaterThanOrEqual(1);
      expect(h.git?.headBefore).not.toBe(h.git?.headAfter);
    }
  });

  test('Ctrl-C stops the loop with exit 3 and a checkpoint; the same command again resumes the change', async () => {
    const r = repo({ FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' });
    requireBuild();
    const child = spawn(process.execPath, [CLI, 'ralph', TWO_STORIES, '--change', 'ctrlc', '--no-stream'], {
      cwd: r.root,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitForFile(join(r.marks, 'run-2'));
    child.kill('SIGINT');
    expect(await exited).toBe(3);
    expect(readFileSync(join(r.root, '.wiggum', 'ralph', 'ctrlc.md'), 'utf8')).toMatch(/status: interrupted/);
    const again = await r.ralph('--change', 'ctrlc', '--no-stream');
    expect(again.code).toBe(0);
    expect(
      r
        .history('ctrlc')
        .filter((h) => h.outcome !== 'stopped')
        .map((h) => h.storiesPassing),
    ).toEqual([1, 2]);
  });

  test('usage errors exit 2', async () => {
    const r = repo();
    expect((await r.ralph('--change', 'nothing-yet')).code).toBe(2);
    expect((await r.ralph('x', '--change', '../evil')).code).toBe(2);
    expect((await r.ralph('x', '--prompt-file', 'missing.md', '--change', 'pf')).code).toBe(2);
    expect((await runCli(['ralph', 'no change id'], { cwd: r.root })).code).toBe(2);
  });
});
