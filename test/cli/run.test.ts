import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import { CLI, REPO_ROOT, killHard, requireBuild, runCli } from '../helpers/child.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { waitFor, waitForFile } from '../helpers/wait.js';
import { isRunning } from '../helpers/process-state.js';

const TASK = '---\ntitle: Three stories\n---\n- [ ] US-001 One\n- [ ] US-002 Two\n- [ ] US-003 Three\n';

function loopOf(file: string): Record<string, unknown> {
  const parsed = parseTask(file, readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(`${file} does not parse`);
  return parsed.task.frontmatter.persistence_loop as Record<string, unknown>;
}

function startRun(file: string): ReturnType<typeof spawn> {
  requireBuild();
  return spawn(process.execPath, [CLI, 'run', file, '--no-stream'], { stdio: ['ignore', 'pipe', 'pipe'] });
}

function exitOf(child: ReturnType<typeof spawn>): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('wiggum run', () => {
  test('exit 0 when done, 1 when rejected, 2 for a usage error', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const done = await runCli(['run', vault.task('ok', TASK), '--no-stream']);
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('wiggum: done after 3 iterations');

    const rejected = await runCli(['run', vault.task('bounded', TASK), '--max-iterations', '2', '--no-stream']);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('E_MAX_ITERATIONS');

    expect((await runCli(['run', join(vault.root, 'Approved', 'missing.md')])).code).toBe(2);
    expect((await runCli(['run', vault.task('x', TASK), '--max-iterations', 'zero'])).code).toBe(2);
  });

  test('an unknown --harness is a usage error (exit 2) that leaves the task untouched', async () => {
    const vault = await makeVault();
    const file = vault.task('typo', TASK);
    const result = await runCli(['run', file, '--harness', 'no-such-harness', '--no-stream']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--harness no-such-harness: no such harness; the configured ones are');
    expect(readFileSync(file, 'utf8')).toBe(TASK);
    expect(readdirSync(vault.layout.rejected)).toEqual([]);
  });

  test('--fail-fast turns a failing harness into exit 1', async () => {
    const vault = await makeVault({ fake: { FAKE_MODE: 'fail', FAKE_EXIT_CODE: '2' } });
    const result = await runCli(['run', vault.task('ff', TASK), '--fail-fast', '--no-stream']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(fail-fast)');
  });

  test('streams the harness output unless --no-stream, and detects the promise either way', async () => {
    const vault = await makeVault({ fake: { FAKE_PRINT: 'visible line\n', FAKE_COMPLETE_AFTER: '1' } });
    const streamed = await runCli(['run', vault.task('s1', TASK)]);
    expect(streamed.code).toBe(0);
    expect(streamed.stdout).toContain('visible line');
    const quiet = await runCli(['run', vault.task('s2', TASK), '--no-stream']);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).not.toContain('visible line');
  });

  test('--harness and --completion-promise override the task', async () => {
    const vault = await makeVault({
      fake: { FAKE_MODE: 'fail', FAKE_EXIT_CODE: '78' },
      config: {
        harnesses: {
          good: {
            kind: 'command',
            command: join(REPO_ROOT, 'test', 'fixtures', 'agents', 'fake-agent.mjs'),
            env: { FAKE_COMPLETE_AFTER: '1' },
          },
        },
      },
    });
    const result = await runCli([
      'run',
      vault.task('o', TASK),
      '--harness',
      'good',
      '--completion-promise',
      'FINISHED',
      '--no-stream',
    ]);
    expect(result.code).toBe(0);
    expect(historyOf(vault.layout.sessions, 'o')[0]).toMatchObject({ harness: 'good', completionFound: true });
  });

  test.each(['SIGINT', 'SIGTERM'] as const)(
    '%s stops the harness, checkpoints "interrupted", exits 3; running again resumes',
    async (signal) => {
      const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' } });
      const file = vault.task('sig', TASK);
      const child = startRun(file);
      const exited = exitOf(child);
      await waitForFile(join(vault.marks, 'run-2'));
      const harness = JSON.parse(readFileSync(join(vault.layout.sessions, 'sig', 'harness.json'), 'utf8')) as {
        pid: number;
      };
      child.kill(signal);
      expect(await exited).toBe(3);
      expect(isRunning(harness.pid)).toBe(false);
      expect(loopOf(file)).toMatchObject({
        status: 'interrupted',
        iteration: 1,
        checkpoint: { completed_steps: ['US-001'] },
      });

      const again = await runCli(['run', file, '--no-stream']);
      expect(again.code).toBe(0);
      expect(
        historyOf(vault.layout.sessions, 'sig')
          .filter((r) => r.outcome !== 'stopped')
          .map((r) => r.iteration),
      ).toEqual([1, 2, 3]);
    },
  );

  // Unconfined, the agent outlives wiggum in its own process group and the next run kills it;
  // confined, bubblewrap's --die-with-parent takes it down with wiggum. Either way nothing is lost.
  test.each([
    ['unconfined (sandbox.mode: off)', 'off', true],
    ['confined (bubblewrap)', 'bwrap', false],
  ] as const)(
    'kill -9 mid-iteration, %s, then run again: the count and completed steps survive, the harness does not run on, nothing is lost or doubled',
    async (_name, mode, outlives) => {
      const vault = await makeVault({
        fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' },
        config: { sandbox: { mode } },
      });
      const file = vault.task('crash', TASK);
      const child = startRun(file);
      await waitForFile(join(vault.marks, 'run-2'));
      const record = join(vault.layout.sessions, 'crash', 'harness.json');
      await waitForFile(record);
      const orphan = (JSON.parse(readFileSync(record, 'utf8')) as { pid: number }).pid;
      await killHard(child);

      if (outlives) expect(isRunning(orphan)).toBe(true);
      else await waitFor(() => !isRunning(orphan), 'the confined harness to die with wiggum');
      expect(loopOf(file)).toMatchObject({
        status: 'running',
        iteration: 1,
        checkpoint: { completed_steps: ['US-001'], current_step: 'US-002' },
      });

      const again = await runCli(['run', file, '--no-stream']);
      expect(again.code).toBe(0);
      expect(isRunning(orphan)).toBe(false);
      if (outlives) expect(again.stderr).toContain('"event":"harness.orphan-killed"');
      const done = join(vault.layout.done, 'crash.md');
      expect(loopOf(done)).toMatchObject({
        status: 'done',
        iteration: 3,
        checkpoint: { completed_steps: ['US-001', 'US-002', 'US-003'] },
      });
      const history = historyOf(vault.layout.sessions, 'crash');
      expect(history.map((r) => r.iteration)).toEqual([1, 2, 3]);
      expect(history.map((r) => r.storiesPassing)).toEqual([1, 2, 3]);
    },
  );

  test('a stop flag stops the task (exit 3); without it the task resumes', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' } });
    const file = vault.task('flagged', TASK);
    const child = startRun(file);
    const exited = exitOf(child);
    await waitForFile(join(vault.marks, 'run-2'));
    writeFileSync(join(vault.layout.approved, 'flagged.stop'), '');
    expect(await exited).toBe(3);
    expect(loopOf(file)).toMatchObject({ status: 'stopped', iteration: 1 });
    rmSync(join(vault.layout.approved, 'flagged.stop'));
    expect((await runCli(['run', file, '--no-stream'])).code).toBe(0);
  });

  test('a stop flag that exists before wiggum run starts keeps the task from starting at all (exit 3)', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const file = vault.task('preflagged', TASK);
    writeFileSync(join(vault.layout.approved, 'preflagged.stop'), '');
    const refused = await runCli(['run', file, '--no-stream']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('preflagged.stop exists');
    expect(readdirSync(vault.marks)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(TASK);
    rmSync(join(vault.layout.approved, 'preflagged.stop'));
    expect((await runCli(['run', file, '--no-stream'])).code).toBe(0);
  });

  test('a second wiggum run of a running task is refused (exit 2, naming the first) and the first goes on', async () => {
    const gates = tempDir('wiggum-gates-');
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gates } });
    const file = vault.task('twice', TASK);
    const first = startRun(file);
    const exited = exitOf(first);
    await waitForFile(join(vault.marks, 'run-1'));
    const second = await runCli(['run', file, '--no-stream']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`pid ${first.pid}`);
    for (const run of [1, 2, 3]) writeFileSync(join(gates, `go-${run}`), '');
    expect(await exited).toBe(0);
    expect(historyOf(vault.layout.sessions, 'twice').map((r) => r.outcome)).not.toContain('stopped');
  });

  test('a task deleted while it runs is stopped, its memory kept', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' } });
    const file = vault.task('doomed', TASK);
    const child = startRun(file);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = exitOf(child);
    await waitForFile(join(vault.marks, 'run-2'));
    rmSync(file);
    expect(await exited).toBe(3);
    expect(stderr).toContain('wiggum: the task file was moved or deleted after 1 iteration; its memory is kept');
    expect(stderr).not.toContain('run the same command again');
    expect(existsSync(join(vault.layout.sessions, 'doomed', 'prd.json'))).toBe(true);
    expect(historyOf(vault.layout.sessions, 'doomed')[0]?.iteration).toBe(1);
  });

  test('a user edit made while the task runs is kept, and reaches the next prompt', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' } });
    const file = vault.task('edited', TASK);
    const child = startRun(file);
    const exited = exitOf(child);
    await waitForFile(join(vault.marks, 'run-2'));
    const text = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      text
        .replace('title: Three stories', 'title: Three stories\npriority: high # added by hand')
        .replace('- [ ] US-003 Three', '- [ ] US-003 Three\n\nUse tabs, not spaces.'),
    );
    child.kill('SIGTERM');
    await exited;
    expect(await runCli(['run', file, '--no-stream'])).toMatchObject({ code: 0 });
    const done = readFileSync(join(vault.layout.done, 'edited.md'), 'utf8');
    expect(done).toContain('priority: high # added by hand');
    expect(done).toContain('Use tabs, not spaces.');
    expect(readFileSync(join(vault.marks, 'run-3'), 'utf8')).toContain('Use tabs, not spaces.');
  });

  test('the example vault: samples end in Done/ and Rejected/ with the demo agent', async () => {
    const root = tempDir();
    cpSync(join(REPO_ROOT, 'vault-example'), root, { recursive: true });
    const approved = join(root, 'Approved');
    const results = [];
    for (const name of readdirSync(approved)
      .filter((n) => n.endsWith('.md'))
      .sort()) {
      results.push([name, (await runCli(['run', join(approved, name), '--no-stream'])).code]);
    }
    expect(results).toEqual([
      ['add-dark-mode.md', 0],
      ['migrate-billing-db.md', 1],
      ['write-release-notes.md', 0],
    ]);
    expect(readdirSync(join(root, 'Done')).sort()).toEqual(['.gitkeep', 'add-dark-mode.md', 'write-release-notes.md']);
    const report = readFileSync(join(root, 'Rejected', 'migrate-billing-db.md'), 'utf8');
    expect(report).toContain(
      '- Reason: the harness reported a failure that retrying cannot fix (exit 78): fatal: permission denied',
    );
    expect(historyOf(join(root, '.wiggum', 'sessions'), 'write-release-notes').map((r) => r.outcome)).toEqual([
      'transient',
      'continue',
      'complete',
    ]);
  });
});
