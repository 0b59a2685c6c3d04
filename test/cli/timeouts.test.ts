import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import { runCli } from '../helpers/child.js';
import { isEvent } from '../helpers/log-events.js';
import { startStubbornTask } from '../helpers/stubborn-agent.js';
import { drainedAfterEach } from '../helpers/daemon.js';
import { historyOf } from '../helpers/history.js';
import { isRunning } from '../helpers/process-state.js';
import { makeVault } from '../helpers/vault.js';
import { NO_TOTAL_BUDGET } from '../helpers/wait.js';

const TASK = '---\ntitle: Long\n---\n- [ ] US-001 One\n';
const daemons = drainedAfterEach();

/** The `## Failure report` of a task file. */
function reportOf(file: string): string {
  const text = readFileSync(file, 'utf8');
  return text.slice(text.indexOf('## Failure report'));
}

/** The folded callout of a report (`> [!failure]-` and its quoted lines), or null. */
function foldedBlock(report: string): string | null {
  const lines = report.split('\n');
  const start = lines.findIndex((line) => /^> \[!failure\]- /.test(line));
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && lines[end]?.startsWith('>') === true) end += 1;
  return lines.slice(start, end).join('\n');
}

const STACK_FRAME = /^> {5}at .+\.js:\d+:\d+\)?$/gm;

describe('timeout.total holds inside an iteration', () => {
  test(
    'a 20 s run under total 5 s is stopped mid-run: recorded, then Rejected with E_TOTAL_TIMEOUT and its stack',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      const vault = await makeVault({
        fake: { FAKE_MODE: 'sleep', FAKE_SLEEP_MS: '20000' },
        config: { persistence_loop: { timeout: { total: '5s', per_step: '60s', idle: '60s' } } },
      });
      const file = vault.task('long', TASK);
      const result = await runCli(['run', file, '--no-stream']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('E_TOTAL_TIMEOUT');
      const rejected = join(vault.layout.rejected, 'long.md');
      expect(existsSync(rejected)).toBe(true);

      // The agent would have exited 0 by itself: its SIGTERM shows wiggum stopped it, inside iteration 1.
      const [record, ...more] = historyOf(vault.layout.sessions, 'long');
      expect(more).toEqual([]);
      expect(record).toMatchObject({
        iteration: 1,
        signal: 'SIGTERM',
        outcome: 'hard',
        error: { code: 'E_TOTAL_TIMEOUT' },
        action: 'reject',
      });
      const parsed = parseTask(rejected, readFileSync(rejected, 'utf8'));
      if (!parsed.ok) throw new Error('the rejected task does not parse');
      expect(parsed.task.frontmatter.persistence_loop).toMatchObject({
        status: 'rejected',
        exit_reason: 'E_TOTAL_TIMEOUT',
      });

      const report = reportOf(rejected);
      expect(report).toContain('during iteration 1, and the agent was stopped mid-run (E_TOTAL_TIMEOUT)');
      const folded = foldedBlock(report);
      expect(folded).toContain('WiggumError E_TOTAL_TIMEOUT');
      expect(folded?.match(STACK_FRAME)?.length).toBeGreaterThanOrEqual(2);
    },
  );

  test(
    'time used before a restart counts: a task checkpointed with 4 s of 5 s used is stopped in its next run',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      const vault = await makeVault({
        fake: { FAKE_MODE: 'sleep', FAKE_SLEEP_MS: '20000' },
        config: { persistence_loop: { timeout: { total: '5s', per_step: '60s', idle: '60s' } } },
      });
      const file = vault.task(
        'resumed',
        '---\ntitle: Resumed\npersistence_loop:\n  status: interrupted\n  iteration: 0\n  max_iterations: 100\n  checkpoint:\n    completed_steps: []\n    state_data:\n      attempt: 0\n      active_ms: 4000\n---\n- [ ] US-001 One\n',
      );
      const result = await runCli(['run', file, '--no-stream']);
      expect(result.code).toBe(1);
      expect(historyOf(vault.layout.sessions, 'resumed')).toEqual([
        expect.objectContaining({
          iteration: 1,
          signal: 'SIGTERM',
          error: expect.objectContaining({ code: 'E_TOTAL_TIMEOUT' }) as unknown,
        }),
      ]);
      expect(existsSync(join(vault.layout.rejected, 'resumed.md'))).toBe(true);
    },
  );
});

describe("failure reports carry wiggum's own error with its stack, folded", () => {
  test(
    "max iterations: the folded stack; a harness failure: its stderr, and no stack of wiggum's",
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      const vault = await makeVault({ fake: { FAKE_STDERR: 'fatal: STDERR-MARK-4411\n' } });
      const maxed = await runCli([
        'run',
        vault.task(
          'maxed',
          `---\ntitle: Maxed\nmax_iterations: 1\nsecret_note: keep me\n---\nThe user's own text.\n\n- [ ] US-001 One\n`,
        ),
        '--no-stream',
      ]);
      expect(maxed.code).toBe(1);
      const maxedFile = join(vault.layout.rejected, 'maxed.md');
      const text = readFileSync(maxedFile, 'utf8');
      // The user's text is kept as written, above the report.
      expect(text).toContain('secret_note: keep me\n');
      expect(text).toContain("The user's own text.\n\n- [ ] US-001 One\n");
      const folded = foldedBlock(reportOf(maxedFile));
      expect(folded).toContain('WiggumError E_MAX_ITERATIONS: reached max_iterations (1)');
      expect(folded?.match(STACK_FRAME)?.length).toBeGreaterThanOrEqual(2);
      // A fenced block inside the callout: the stack is shown as written, not read as Markdown.
      expect(folded?.split('\n')[1]).toMatch(/^> `{3,}text$/);

      const failing = await makeVault({
        fake: { FAKE_MODE: 'fail', FAKE_EXIT_CODE: '77', FAKE_STDERR: 'fatal: STDERR-MARK-4411\n' },
      });
      const hard = await runCli(['run', failing.task('hard', TASK), '--no-stream']);
      expect(hard.code).toBe(1);
      const report = reportOf(join(failing.layout.rejected, 'hard.md'));
      expect(report).toContain('fatal: STDERR-MARK-4411');
      expect(foldedBlock(report)).toBeNull();
    },
  );
});

describe('daemon.drain_grace bounds the drain', () => {
  test(
    'drain_grace 2s, stop_grace 10s, an agent and its child ignoring SIGTERM: both killed by the drain, the task checkpointed, the daemon exits 0',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      const { vault, daemon, pids } = await startStubbornTask(
        { daemon: { drain_grace: '2s' }, harness: { stop_grace: '10s' } },
        daemons,
      );

      const exit = await daemon.drain();
      expect(exit).toEqual({ code: 0, signal: null });
      // The kill came from the drain grace, not from stop_grace (10 s), which the daemon did not wait out.
      expect(daemon.lines.some(isEvent('daemon.drain-grace-over', { graceMs: 2000 }))).toBe(true);
      expect(pids.filter((pid) => isRunning(pid))).toEqual([]);
      const [run] = historyOf(vault.layout.sessions, 'stubborn');
      expect(run).toMatchObject({ iteration: 1, signal: 'SIGKILL', outcome: 'stopped', action: 'stop' });
      const file = join(vault.layout.approved, 'stubborn.md');
      const parsed = parseTask(file, readFileSync(file, 'utf8'));
      if (!parsed.ok) throw new Error('the task does not parse');
      expect(parsed.task.frontmatter.persistence_loop).toMatchObject({ status: 'interrupted' });
    },
  );
});
