import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { TaskRunResult } from '../../src/loop/events.js';
import type { RunOverrides } from '../../src/loop/prepare.js';
import { runTask } from '../../src/loop/run-task.js';
import { parseTask } from '../../src/task/parse.js';
import { captureLogger } from '../helpers/capture-logger.js';
import type { LogLine } from '../helpers/capture-logger.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { IterationRecord } from '../../src/memory/history.js';
import { historyOf } from '../helpers/history.js';
import { fakeRuns, makeVault } from '../helpers/vault.js';
import { waitForFile } from '../helpers/wait.js';
import type { TestVault, TestVaultOptions } from '../helpers/vault.js';
import { vaultRunHost } from '../../src/vault/run-host.js';

const TASK = '---\ntitle: Dark mode\n---\n# Dark mode\n\n- [ ] US-001 Theme context\n- [ ] US-002 Toggle\n';

interface Ran {
  result: TaskRunResult;
  clock: FakeClock;
  logs: LogLine[];
  history: IterationRecord[];
  text: string;
}

async function run(
  vault: TestVault,
  file: string,
  overrides: RunOverrides = {},
  signal = new AbortController().signal,
): Promise<Ran> {
  const clock = new FakeClock();
  const { logger, lines } = captureLogger();
  const result = await runTask(
    { file, overrides, stream: null, signal },
    { config: vault.config, host: vaultRunHost(vault.layout), clock, random: () => 0.5, logger, env: process.env },
  );
  return {
    result,
    clock,
    logs: lines,
    history: historyOf(vault.layout.sessions, result.taskId ?? ''),
    text: existsSync(result.file) ? readFileSync(result.file, 'utf8') : '',
  };
}

function loopOf(text: string): Record<string, unknown> {
  const parsed = parseTask('t.md', text);
  if (!parsed.ok) throw new Error('the task file does not parse');
  return parsed.task.frontmatter.persistence_loop as Record<string, unknown>;
}

async function vaultWith(fake: Record<string, string>, config?: TestVaultOptions['config']): Promise<TestVault> {
  return makeVault({ fake, ...(config === undefined ? {} : { config }) });
}

describe('completion', () => {
  test('succeeds after N iterations: Done/ with a completion summary, checkpoint and history', async () => {
    const vault = await vaultWith({ FAKE_COMPLETE_AFTER: '3' });
    const ran = await run(vault, vault.task('dark-mode', TASK));
    expect(ran.result).toMatchObject({ status: 'done', iterations: 3, file: join(vault.layout.done, 'dark-mode.md') });
    expect(existsSync(join(vault.layout.approved, 'dark-mode.md'))).toBe(false);
    expect(ran.text.startsWith('---\ntitle: Dark mode\nstate: Done\npersistence_loop:\n  status: done\n')).toBe(true);
    expect(loopOf(ran.text)).toMatchObject({
      iteration: 3,
      max_iterations: 100,
      exit_reason: 'completed',
      checkpoint: { completed_steps: ['US-001', 'US-002'], current_step: null },
    });
    // Not one byte of the body changes: the summary is appended after it.
    expect(ran.text).toContain(
      '# Dark mode\n\n- [ ] US-001 Theme context\n- [ ] US-002 Toggle\n\n## Completion summary\n',
    );
    expect(ran.text).toContain('after 3 iterations');
    expect(ran.history.map((r) => [r.iteration, r.outcome, r.action])).toEqual([
      [1, 'continue', 'continue'],
      [2, 'continue', 'continue'],
      [3, 'complete', 'done'],
    ]);
    expect(ran.history[2]).toMatchObject({
      exitCode: 0,
      completionFound: true,
      completionAccepted: true,
      storiesPassing: 2,
      storiesTotal: 2,
    });
    // Every iteration is logged with its number, the action, the result and the next state.
    const iterationLogs = ran.logs.filter((line) => typeof line.outcome === 'string');
    expect(iterationLogs.map((line) => [line.iteration, line.action, line.outcome, line.next])).toEqual([
      [1, 'continue', 'continue', 'next iteration'],
      [2, 'continue', 'continue', 'next iteration'],
      [3, 'done', 'complete', 'Done'],
    ]);
  });

  test('with tick_checklist the checklist of a Done task is ticked for the stories that pass, and nothing else changes', async () => {
    const vault = await vaultWith({ FAKE_COMPLETE_AFTER: '1' }, { persistence_loop: { tick_checklist: true } });
    const ran = await run(vault, vault.task('dark-mode', TASK));
    expect(ran.result).toMatchObject({ status: 'done', iterations: 1 });
    expect(ran.text).toContain(
      '# Dark mode\n\n- [x] US-001 Theme context\n- [x] US-002 Toggle\n\n## Completion summary\n',
    );
  });

  test('a promise without every story passing is refused, and the reason reaches the next prompt', async () => {
    const vault = await vaultWith({ FAKE_PROMISE_ONLY: '1', FAKE_COMPLETE_AFTER: '2' });
    const ran = await run(vault, vault.task('claim', TASK));
    expect(ran.result.status).toBe('done');
    expect(ran.history[0]).toMatchObject({ completionFound: true, completionAccepted: false, outcome: 'refused' });
    expect(ran.history[0]?.refusal).toContain('only 0 of 2 stories have "passes": true');
    const secondPrompt = readFileSync(join(vault.marks, 'run-2'), 'utf8');
    expect(secondPrompt).toContain('## Your last completion claim was refused');
    expect(secondPrompt).toContain('the next one is US-001 Theme context');
  });

  test('a failing verify check refuses the claim; once it passes the task is done', async () => {
    const marker = join(await makeVault().then((v) => v.root), 'verify-ok');
    const vault = await vaultWith(
      { FAKE_COMPLETE_AFTER: '1' },
      {
        checks: {
          tests: {
            command: '/bin/sh',
            args: ['-c', `if [ -e ${marker} ]; then exit 0; else touch ${marker}; echo "2 tests failed"; exit 1; fi`],
          },
        },
        // The check runs confined: its marker's folder is the test's channel to it.
        sandbox: { writable: [dirname(marker)] },
      },
    );
    const ran = await run(vault, vault.task('verified', `---\nverify: tests\n---\nbody\n`));
    expect(ran.result.status).toBe('done');
    expect(ran.history.map((r) => r.outcome)).toEqual(['refused', 'complete']);
    expect(ran.history[0]?.refusal).toContain('the verify check "tests" failed (exit code 1)');
    expect(ran.history[0]?.refusal).toContain('2 tests failed');
  });

  test('a custom completion promise from the task', async () => {
    const vault = await vaultWith({ FAKE_COMPLETE_AFTER: '1' });
    const ran = await run(vault, vault.task('custom', '---\ncompletion_promise: SHIPPED\n---\nbody\n'));
    expect(ran.result.status).toBe('done');
    expect(readFileSync(join(vault.marks, 'run-1'), 'utf8')).toContain('<promise>SHIPPED</promise>');
  });

  test('an echo of the prompt never completes the task', async () => {
    const vault = await vaultWith({ FAKE_MODE: 'echo-stdin' }, { persistence_loop: { no_progress_limit: 2 } });
    const ran = await run(vault, vault.task('echo', TASK));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_NO_PROGRESS' });
    expect(ran.history.every((record) => !record.completionFound)).toBe(true);
  });
});

describe('failures', () => {
  test('transient failures are retried after 1 s and 2 s (±20 % jitter, fake clock), then it succeeds', async () => {
    const vault = await vaultWith(
      { FAKE_STATE_FILE: 'x', FAKE_FAIL_TIMES: '2', FAKE_EXIT_CODE: '75', FAKE_COMPLETE_AFTER: '3' },
      { persistence_loop: { retry: { base_delay: 1, max_delay: 16 } } },
    );
    vault.config.harnesses.fake!.env.FAKE_STATE_FILE = join(vault.marks, 'fails');
    const ran = await run(vault, vault.task('flaky', TASK));
    expect(ran.result.status).toBe('done');
    expect(ran.clock.sleeps).toEqual([1000, 2000]);
    expect(ran.history.map((r) => [r.iteration, r.attempt, r.outcome])).toEqual([
      [1, 0, 'transient'],
      [1, 1, 'transient'],
      [1, 2, 'complete'],
    ]);
    expect(ran.history[0]?.error?.code).toBe('E_HARNESS_TEMPFAIL');
    const logs = join(vault.layout.sessions, 'flaky', 'logs');
    expect(ran.history.map((r) => r.logFile)).toEqual([
      join(logs, '0001.log'),
      join(logs, '0001.retry1.log'),
      join(logs, '0001.retry2.log'),
    ]);
    for (const record of ran.history) expect(existsSync(record.logFile ?? '')).toBe(true);
  });

  test('temporary failures past max_attempts are an outage, waited for until outage_max_wait, then rejected with the whole retry history', async () => {
    const vault = await vaultWith(
      { FAKE_MODE: 'fail', FAKE_EXIT_CODE: '75', FAKE_STDERR: 'upstream 503\n' },
      { persistence_loop: { retry: { base_delay: 1, max_delay: 16 }, outage_max_wait: '10s' } },
    );
    const ran = await run(vault, vault.task('down', TASK));
    expect(ran.result).toMatchObject({
      status: 'rejected',
      code: 'E_HARNESS_OUTAGE',
      file: join(vault.layout.rejected, 'down.md'),
    });
    // Three retries, then a probe when outage_max_wait runs out (10 s after the first failure), which fails too.
    expect(ran.clock.sleeps.slice(0, 3)).toEqual([1000, 2000, 4000]);
    expect(ran.clock.sleeps).toHaveLength(4);
    expect(ran.history).toHaveLength(5);
    expect(ran.history.every((record) => record.iteration === 1)).toBe(true);
    expect(ran.text).toContain(
      '- Reason: outage: the harness kept failing with network or overload errors for 10 s, longer than persistence_loop.outage_max_wait (10 s); the last one: the harness reported a temporary failure (exit 75): upstream 503.',
    );
    expect(ran.text).toMatch(
      /\| 1 \| 4 \| .* \| 75 \| transient: the harness reported a temporary failure \(exit 75\): upstream 503 \| no \| 0\/2 \| Rejected \(E_HARNESS_OUTAGE\) \|/,
    );
    expect(ran.text).toContain('```text\nupstream 503\n```');
    // Named through the run's own link, which leads to the log while the id is not run again, and after.
    const named =
      /- Full output of the failing run: `(\.wiggum\/runs\/\d{4}-\d{2}-\d{2}-down-[0-9a-f]{8}\/logs\/0001\.retry4\.log)`\./.exec(
        ran.text,
      )?.[1];
    expect(named).toBeDefined();
    expect(realpathSync(join(vault.root, named!))).toBe(
      realpathSync(join(vault.layout.sessions, 'down', 'logs', '0001.retry4.log')),
    );
    expect(loopOf(ran.text)).toMatchObject({ status: 'rejected', exit_reason: 'E_HARNESS_OUTAGE' });
  });

  test('a hard failure rejects at once with the harness stderr in the report', async () => {
    const vault = await vaultWith({
      FAKE_MODE: 'fail',
      FAKE_EXIT_CODE: '78',
      FAKE_STDERR: 'fatal: invalid credentials\n',
    });
    const ran = await run(vault, vault.task('auth', TASK));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_HARNESS_FATAL', iterations: 0 });
    expect(ran.history).toHaveLength(1);
    expect(ran.text).toContain('### Error\n\n```text\nfatal: invalid credentials\n```');
    expect(ran.text).toContain('### What to do next');
    expect(ran.text).toContain('wiggum retry auth');
  });

  test('a task without a checklist completes when the agent says it is complete', async () => {
    const vault = await vaultWith({ FAKE_PROMISE_ONLY: '1' });
    const ran = await run(vault, vault.task('plain', '---\ntitle: Plain\n---\nJust make the build green.\n'));
    expect(ran.result).toMatchObject({ status: 'done', iterations: 1 });
    expect(ran.history.map((r) => [r.outcome, r.storiesTotal])).toEqual([['complete', 0]]);
  });

  test('a missing harness binary is a hard failure whose message says what to fix', async () => {
    const vault = await makeVault({
      config: { harnesses: { ghost: { kind: 'command', command: '/nonexistent/agent' } } },
    });
    const ran = await run(vault, vault.task('ghost', '---\nharness: ghost\n---\nbody\n'));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_HARNESS_MISSING' });
    expect(ran.result.reason).toContain('harnesses.ghost.command');
    expect(ran.result.reason?.match(/in the config/g)).toHaveLength(1);
  });

  test('a task refused before its first iteration says it has no memory yet, not that memory is not durable', async () => {
    const vault = await makeVault();
    const ran = await run(vault, vault.task('nowhere', '---\nworkdir: /etc\n---\nbody\n'));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_TASK_SCHEMA' });
    expect(ran.text).toContain('- Memory: none yet (the task was refused before its first iteration).');
    expect(ran.text).not.toContain('not durable');
    // One count: nothing ran, so the report names no iteration as failed and the checkpoint says 0.
    expect(ran.text).toContain('- Refused before any iteration ran, at ');
    expect(ran.text).not.toMatch(/iteration 1\b/);
    expect(loopOf(ran.text)).toMatchObject({ status: 'rejected', iteration: 0 });
  });

  test('a non-zero exit is recorded and the loop goes on', async () => {
    const vault = await vaultWith({
      FAKE_STATE_FILE: 'x',
      FAKE_FAIL_TIMES: '1',
      FAKE_EXIT_CODE: '3',
      FAKE_COMPLETE_AFTER: '2',
    });
    vault.config.harnesses.fake!.env.FAKE_STATE_FILE = join(vault.marks, 'fails');
    const ran = await run(vault, vault.task('bumpy', TASK));
    expect(ran.result.status).toBe('done');
    expect(ran.history.map((r) => [r.iteration, r.exitCode, r.outcome, r.action])).toEqual([
      [1, 3, 'nonzero-exit', 'continue'],
      [2, 0, 'complete', 'done'],
    ]);
  });

  test('with fail-fast the first non-zero exit rejects the task', async () => {
    const vault = await vaultWith({ FAKE_MODE: 'fail', FAKE_EXIT_CODE: '3' });
    const ran = await run(vault, vault.task('strict', TASK), { failFast: true });
    expect(ran.result).toMatchObject({
      status: 'rejected',
      code: 'E_HARNESS_EXIT',
      reason: 'the harness exited with code 3 (fail-fast)',
    });
    expect(ran.history).toHaveLength(1);
  });

  test('a harness killed by a signal is a failed iteration, recorded with the signal', async () => {
    const vault = await vaultWith(
      { FAKE_MODE: 'signal', FAKE_SIGNAL: 'SIGSEGV' },
      { persistence_loop: { max_iterations: 2 } },
    );
    const ran = await run(vault, vault.task('crashy', TASK));
    expect(ran.history.map((r) => [r.signal, r.outcome])).toEqual([
      ['SIGSEGV', 'nonzero-exit'],
      ['SIGSEGV', 'nonzero-exit'],
    ]);
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_MAX_ITERATIONS' });
  });

  test('a hanging harness times out (a transient failure) and is stopped; retries exhausted → rejected', async () => {
    // Whether SIGTERM or the SIGKILL after it ends the agent depends on how far it got in 300 ms;
    // the escalation itself is tested deterministically in test/harness/run-process.test.ts.
    const vault = await vaultWith(
      { FAKE_MODE: 'ignore-term', FAKE_PRINT: 'started\n' },
      { persistence_loop: { timeout: { per_step: '300ms' }, retry: { max_attempts: 1 } } },
    );
    const ran = await run(vault, vault.task('hang', TASK));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_RETRIES_EXHAUSTED' });
    expect(ran.history.map((r) => [r.outcome, r.error?.code])).toEqual([
      ['transient', 'E_HARNESS_TIMEOUT'],
      ['transient', 'E_HARNESS_TIMEOUT'],
    ]);
    for (const record of ran.history) expect(['SIGTERM', 'SIGKILL']).toContain(record.signal);
  });

  test('an idle harness is stopped', async () => {
    const vault = await vaultWith(
      { FAKE_MODE: 'hang' },
      { persistence_loop: { timeout: { idle: '300ms' }, retry: { max_attempts: 0 } } },
    );
    const ran = await run(vault, vault.task('idle', TASK));
    expect(ran.history[0]?.error?.code).toBe('E_HARNESS_IDLE');
    expect(ran.result.code).toBe('E_RETRIES_EXHAUSTED');
  });

  test('100 MB of output: the log is capped, memory stays bounded, the loop goes on', async () => {
    const vault = await vaultWith(
      { FAKE_MODE: 'flood', FAKE_FLOOD_BYTES: String(100 * 1024 * 1024), FAKE_COMPLETE_AFTER: '2' },
      { harness: { log_max_bytes: '1MiB' } },
    );
    const ran = await run(vault, vault.task('flood', TASK));
    expect(ran.result.status).toBe('done');
    const log = join(vault.layout.sessions, 'flood', 'logs', '0001.log');
    expect(statSync(log).size).toBeLessThan(1024 * 1024 + 200);
    expect(readFileSync(log, 'utf8')).toMatch(/\[wiggum: output truncated after \d+ bytes\]/);
  });

  test('max iterations: warned once at 80 %, then Rejected with a full report', async () => {
    const vault = await vaultWith(
      { FAKE_COMPLETE_AFTER: '99', FAKE_PRINT: 'still working\n' },
      { persistence_loop: { max_iterations: 5 } },
    );
    const ran = await run(vault, vault.task('endless', TASK));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_MAX_ITERATIONS', iterations: 5 });
    const warnings = ran.logs.filter((line) => line.level === 40 && line.event === 'loop.near-max-iterations');
    expect(warnings.map((line) => line.iteration)).toEqual([4]);
    for (const part of [
      '## Failure report',
      '- Reason: reached max_iterations (5)',
      '- Used all 5 iterations without completing',
      '- Checkpoint: completed steps none; current step US-001',
      '### Iterations and retries',
      '| 5 | 0 |',
      '### Last output',
    ]) {
      expect(ran.text).toContain(part);
    }
    expect(ran.text).not.toContain('iteration 6');
  });

  test('the total timeout counts harness time and backoff, and rejects the task when used up', async () => {
    const vault = await vaultWith(
      { FAKE_MODE: 'fail', FAKE_EXIT_CODE: '75' },
      { persistence_loop: { retry: { base_delay: 2, max_delay: 16, max_attempts: 10 }, timeout: { total: 5 } } },
    );
    const ran = await run(vault, vault.task('slow', TASK));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_TOTAL_TIMEOUT' });
    // Backoff of 2 s and 4 s (fake clock) plus the runs themselves pass the 5 s budget.
    expect(ran.clock.sleeps).toEqual([2000, 4000]);
    expect(ran.text).toContain('used its total time budget (5 s, persistence_loop.timeout.total)');
  });

  test('no progress for no_progress_limit iterations: rejected as stuck', async () => {
    const vault = await vaultWith({}, { persistence_loop: { no_progress_limit: 3 } });
    const ran = await run(vault, vault.task('stuck', TASK));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_NO_PROGRESS', iterations: 3 });
  });
});

describe('input and endings', () => {
  test('a malformed task goes to Rejected/ with the problems, the original text intact', async () => {
    const vault = await makeVault();
    const original = '---\ntitle: broken\nmax_iterations: lots\n---\nmy precious words\n';
    const ran = await run(vault, vault.task('broken', original));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_TASK_SCHEMA' });
    const text = readFileSync(join(vault.layout.rejected, 'broken.md'), 'utf8');
    expect(text.startsWith(original)).toBe(true);
    expect(text).toContain(`broken.md:3:17: max_iterations: Invalid input: expected number, received string`);
  });

  test('a binary task file is rejected with its bytes intact', async () => {
    const vault = await makeVault();
    const bytes = Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0xff, 0xfe]);
    const file = join(vault.layout.approved, 'blob.md');
    writeFileSync(file, bytes);
    await run(vault, file);
    const moved = readFileSync(join(vault.layout.rejected, 'blob.md'));
    expect(moved.subarray(0, bytes.length)).toEqual(bytes);
    expect(moved.toString('utf8')).toContain('the file is binary');
  });

  test('an unknown harness is rejected before anything runs', async () => {
    const vault = await makeVault();
    const ran = await run(vault, vault.task('nope', '---\nharness: skynet\n---\nbody\n'));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_TASK_SCHEMA' });
    expect(readdirSync(vault.marks)).toEqual([]);
    expect(ran.text).toContain('unknown harness "skynet"');
  });

  test('a prd: outside the vault is rejected before anything runs, and nothing of it reaches the note', async () => {
    const vault = await makeVault();
    const elsewhere = tempDir();
    writeFileSync(join(elsewhere, 'private.txt'), 'PRIVATE-BYTES not json');
    const ran = await run(vault, vault.task('far', `---\nprd: ${join(elsewhere, 'private.txt')}\n---\nbody\n`));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_TASK_SCHEMA' });
    expect(readdirSync(vault.marks)).toEqual([]);
    expect(ran.text).toContain(`prd: ${join(elsewhere, 'private.txt')} is outside the vault and the task's workdir`);
    expect(ran.text).not.toContain('PRIVATE-BYTES');
  });

  test('a name clash in Done/ gets a suffix, never an overwrite', async () => {
    const vault = await vaultWith({ FAKE_COMPLETE_AFTER: '1' });
    writeFileSync(join(vault.layout.done, 'twice.md'), 'an earlier task');
    const ran = await run(vault, vault.task('twice', TASK));
    expect(ran.result.file).toBe(join(vault.layout.done, 'twice-2.md'));
    expect(readFileSync(join(vault.layout.done, 'twice.md'), 'utf8')).toBe('an earlier task');
  });

  test('a task whose final state was written but not moved (a crash in between) is only moved', async () => {
    const vault = await makeVault();
    // The marker the ending writes before the final state, which the move would have removed.
    mkdirSync(vault.layout.taskLocks, { recursive: true });
    writeFileSync(join(vault.layout.taskLocks, 'halfway.ending'), 'done\n');
    const ran = await run(
      vault,
      vault.task(
        'halfway',
        '---\nstate: Done\npersistence_loop:\n  status: done\n  iteration: 4\n  max_iterations: 9\n---\nbody\n',
      ),
    );
    expect(ran.result).toMatchObject({ status: 'done', iterations: 4, file: join(vault.layout.done, 'halfway.md') });
    expect(readdirSync(vault.marks)).toEqual([]);
    expect(existsSync(join(vault.layout.taskLocks, 'halfway.ending'))).toBe(false);
  });

  test('a Done task moved back into Approved/ by hand runs again with a fresh budget and its memory, and can complete again', async () => {
    const vault = await vaultWith({ FAKE_STORY_PER_RUN: '1', FAKE_PRINT: 'same words every run\n' });
    const file = vault.task('again', '---\ntitle: Again\nmax_iterations: 2\n---\n- [ ] US-001 One\n- [ ] US-002 Two\n');
    const first = await run(vault, file);
    expect(first.result).toMatchObject({ status: 'done', iterations: 2 });
    expect(existsSync(join(vault.layout.taskLocks, 'again.ending'))).toBe(false);
    // Put back as it is, state: Done, summary and all: its 2 iterations are spent, so only a fresh budget lets it run.
    const back = join(vault.layout.approved, 'again.md');
    renameSync(first.result.file, back);
    const second = await run(vault, back);
    expect(second.result).toMatchObject({ status: 'done', iterations: 1, file: join(vault.layout.done, 'again.md') });
    expect(second.logs.some((line) => line.event === 'task.sent-back')).toBe(true);
    // The memory carried over: one more run, with every story already passing, printed the promise
    // after the same words as the first run's (quoted in the summary the prompt shows) and was believed.
    expect(second.history).toHaveLength(3);
    expect(second.history.at(-1)).toMatchObject({ completionFound: true, storiesPassing: 2 });
    expect(fakeRuns(vault).get('again')).toBe(3);
  });

  test('a task rejected by a run, then moved back into Approved/ by hand, runs again with its memory instead of being re-rejected', async () => {
    const vault = await vaultWith({ FAKE_STORY_PER_RUN: '1' });
    const file = vault.task('again', '---\ntitle: Again\nmax_iterations: 1\n---\n- [ ] US-001 One\n- [ ] US-002 Two\n');
    const first = await run(vault, file);
    expect(first.result).toMatchObject({ status: 'rejected', code: 'E_MAX_ITERATIONS' });
    expect(existsSync(join(vault.layout.taskLocks, 'again.ending'))).toBe(false);
    // The user raises the budget and puts the file back, report and all.
    const back = join(vault.layout.approved, 'again.md');
    writeFileSync(back, first.text.replace('max_iterations: 1', 'max_iterations: 5'));
    const second = await run(vault, back);
    expect(second.result).toMatchObject({ status: 'done', file: join(vault.layout.done, 'again.md') });
    // The earlier report is kept for the record; the memory carried over (one more run finished it).
    expect(second.text).toContain('## Failure report');
    expect(second.text).toContain('## Completion summary');
    expect(second.history.filter((r) => r.outcome !== 'stopped')).toHaveLength(2);
  });

  test('a stop request stops the harness and checkpoints the task as stopped; a new run resumes it', async () => {
    const vault = await vaultWith({ FAKE_MODE: 'hang', FAKE_COMPLETE_AFTER: '2' });
    const file = vault.task('pausable', TASK);
    const controller = new AbortController();
    const clock = new FakeClock();
    const { logger } = captureLogger();
    const result = await runTask(
      {
        file,
        stream: null,
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'iteration')
            void waitForFile(join(vault.marks, 'run-1')).then(() => controller.abort('stop-flag'));
        },
      },
      { config: vault.config, host: vaultRunHost(vault.layout), clock, random: () => 0.5, logger, env: process.env },
    );
    // The stopped run had already written to progress.txt: its work is kept, so the iteration counts.
    expect(result).toMatchObject({ status: 'stopped', iterations: 1 });
    expect(loopOf(readFileSync(file, 'utf8'))).toMatchObject({ status: 'stopped', iteration: 1 });
    vault.config.harnesses.fake!.env.FAKE_MODE = 'succeed';
    const resumed = await run(vault, file);
    expect(resumed.result).toMatchObject({ status: 'done', iterations: 2 });
  });
});

describe('a crash between the history line and the checkpoint', () => {
  test('the finished iteration is counted once, not run and recorded again', async () => {
    const vault = await vaultWith({ FAKE_STORY_PER_RUN: '1' });
    const file = vault.task('torn', TASK);
    const first = await run(vault, file, { maxIterations: 1 });
    expect(first.result.status).toBe('rejected');
    // As if wiggum died after appending iteration 2 to history.jsonl but before its checkpoint:
    // put the task back as it was after iteration 1, with history one line ahead.
    const { sendTaskBack } = await import('../../src/vault/send-back.js');
    await sendTaskBack('torn', vault.layout, vault.config, { fresh: false, clock: new FakeClock() });
    const back = join(vault.layout.approved, 'torn.md');
    const text = readFileSync(back, 'utf8').replace('iteration: 0', 'iteration: 1');
    writeFileSync(back, text);
    const historyFile = join(vault.layout.sessions, 'torn', 'history.jsonl');
    const line = JSON.parse(readFileSync(historyFile, 'utf8').trim().split('\n').at(-1) ?? '{}') as IterationRecord;
    writeFileSync(
      historyFile,
      `${readFileSync(historyFile, 'utf8')}${JSON.stringify({ ...line, iteration: 2, outcome: 'continue', action: 'continue' })}\n`,
    );
    const resumed = await run(vault, back);
    expect(resumed.result.status).toBe('done');
    expect(resumed.logs.some((l) => l.event === 'loop.crashed-iteration-counted' && l.iteration === 2)).toBe(true);
    expect(resumed.history.map((r) => r.iteration)).toEqual([1, 2, 3]);
  });
});
