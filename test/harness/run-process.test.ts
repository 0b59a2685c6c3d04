import { chmodSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isProcessGroupAlive } from '../../src/harness/group-signals.js';
import { runProcess } from '../../src/harness/run-process.js';
import type { ProcessSpec } from '../../src/harness/run-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { isRunning } from '../helpers/process-state.js';

const fakeAgent = join(import.meta.dirname, '..', 'fixtures', 'agents', 'fake-agent.mjs');
const truncationLine = (bytes: number): string => `[wiggum: output truncated after ${bytes} bytes]\n`;

/** A run of the fake agent with short limits; `fake` becomes its FAKE_* environment. */
function agentSpec(fake: Record<string, string>, overrides: Partial<ProcessSpec> = {}): ProcessSpec {
  return {
    command: fakeAgent,
    args: [],
    cwd: tempDir(),
    env: { PATH: process.env['PATH'] ?? '', ...fake },
    stdin: '',
    timeoutMs: 0,
    idleTimeoutMs: 0,
    stopGraceMs: 300,
    logFile: null,
    logMaxBytes: 1024 * 1024,
    tailBytes: 4096,
    ...overrides,
  };
}

function pidsIn(file: string): number[] {
  return readFileSync(file, 'utf8').trim().split('\n').map(Number);
}

describe('runProcess', () => {
  test('captures stdout, stderr and the log of a successful run', async () => {
    const dir = tempDir();
    const logFile = join(dir, 'run.log');
    writeFileSync(logFile, 'earlier run\n');
    const chunks: string[] = [];
    let spawnedPid: number | null = null;
    const result = await runProcess(
      agentSpec(
        { FAKE_PRINT: 'hello from stdout\n', FAKE_STDERR: 'hello from stderr\n' },
        { logFile, onOutput: (chunk) => chunks.push(chunk.toString()), onSpawn: (pid) => (spawnedPid = pid) },
      ),
    );
    expect(result).toMatchObject({
      exitCode: 0,
      signal: null,
      spawnError: null,
      timedOut: false,
      idleTimedOut: false,
      stopped: false,
    });
    expect(result.pid).toBe(spawnedPid);
    expect(result.stdoutTail).toBe('hello from stdout\n');
    expect(result.stderrTail).toBe('hello from stderr\n');
    expect(result.outputBytes).toBe(36);
    expect(result.logTruncated).toBe(false);
    expect(result.logError).toBeNull();
    expect(result.leftoverKilled).toBe(false);
    expect(chunks.join('')).toHaveLength(36);
    const log = readFileSync(logFile, 'utf8');
    expect(log.startsWith('earlier run\n')).toBe(true);
    expect(log).toContain('hello from stdout\n');
    expect(log).toContain('hello from stderr\n');
    expect(log).toHaveLength('earlier run\n'.length + 36);
  });

  test('reports a non-zero exit code', async () => {
    const result = await runProcess(agentSpec({ FAKE_MODE: 'fail', FAKE_EXIT_CODE: '3', FAKE_STDERR: 'boom\n' }));
    expect(result).toMatchObject({ exitCode: 3, signal: null, spawnError: null, stderrTail: 'boom\n' });
  });

  test('reports the signal that killed the child', async () => {
    const result = await runProcess(agentSpec({ FAKE_MODE: 'signal', FAKE_SIGNAL: 'SIGKILL' }));
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', stopped: false, timedOut: false });
  });

  test('a command missing from PATH is E_HARNESS_MISSING, naming the command and the config key', async () => {
    const result = await runProcess(
      agentSpec({}, { command: 'wiggum-no-such-agent', configKey: 'harnesses.ghost.command' }),
    );
    expect(result.pid).toBeNull();
    expect(result.exitCode).toBeNull();
    expect(result.spawnError?.code).toBe('E_HARNESS_MISSING');
    expect(result.spawnError?.message).toContain('"wiggum-no-such-agent" was not found on PATH');
    expect(result.spawnError?.message).toContain('fix harnesses.ghost.command in the config');
  });

  test('a missing path and a file that is not executable are E_HARNESS_MISSING', async () => {
    const dir = tempDir();
    const plain = join(dir, 'agent.sh');
    writeFileSync(plain, '#!/bin/sh\necho hi\n');
    chmodSync(plain, 0o644);
    const notExecutable = await runProcess(agentSpec({}, { command: plain }));
    expect(notExecutable.spawnError?.code).toBe('E_HARNESS_MISSING');
    expect(notExecutable.spawnError?.message).toContain('is not executable');
    const missing = await runProcess(agentSpec({}, { command: join(dir, 'nothing-here') }));
    expect(missing.spawnError?.code).toBe('E_HARNESS_MISSING');
    expect(missing.spawnError?.message).toContain(join(dir, 'nothing-here'));
  });

  test('a missing working directory is E_HARNESS_SPAWN, not a missing command', async () => {
    const result = await runProcess(agentSpec({}, { cwd: join(tempDir(), 'gone') }));
    expect(result.spawnError?.code).toBe('E_HARNESS_SPAWN');
    expect(result.spawnError?.message).toContain('working directory');
  });

  test('a hanging child is stopped at the timeout and its group is gone', async () => {
    const result = await runProcess(agentSpec({ FAKE_MODE: 'hang' }, { timeoutMs: 300 }));
    expect(result).toMatchObject({
      timedOut: true,
      idleTimedOut: false,
      stopped: false,
      exitCode: null,
      signal: 'SIGTERM',
    });
    expect(isProcessGroupAlive(result.pid ?? 0)).toBe(false);
  });

  test('a silent child is stopped at the idle timeout', async () => {
    const result = await runProcess(
      agentSpec({ FAKE_MODE: 'hang', FAKE_PRINT: 'thinking…\n' }, { idleTimeoutMs: 300 }),
    );
    expect(result).toMatchObject({ idleTimedOut: true, timedOut: false, stopped: false, signal: 'SIGTERM' });
    expect(result.stdoutTail).toBe('thinking…\n');
  });

  test('output keeps the idle timeout from firing', async () => {
    // 40 ticks 100 ms apart last over four seconds, more than the idle limit; the limit is 30 ticks
    // long, so a busy machine that delays node's start-up or a few ticks does not reach it.
    const result = await runProcess(
      agentSpec(
        { FAKE_MODE: 'tick', FAKE_TICKS: '40', FAKE_TICK_MS: '100', FAKE_PRINT: 'start\n' },
        { idleTimeoutMs: 3_000 },
      ),
    );
    expect(result).toMatchObject({ idleTimedOut: false, exitCode: 0 });
    expect(result.stdoutTail).toContain('tick 40\n');
  });

  test('aborting the signal stops the child', async () => {
    const controller = new AbortController();
    const result = await runProcess(
      agentSpec(
        { FAKE_MODE: 'hang', FAKE_PRINT: 'ready\n' },
        { signal: controller.signal, onOutput: () => controller.abort() },
      ),
    );
    expect(result).toMatchObject({
      stopped: true,
      timedOut: false,
      idleTimedOut: false,
      exitCode: null,
      signal: 'SIGTERM',
    });
    expect(isProcessGroupAlive(result.pid ?? 0)).toBe(false);
  });

  test('a signal aborted before the start spawns nothing', async () => {
    let spawned = false;
    const result = await runProcess(agentSpec({}, { signal: AbortSignal.abort(), onSpawn: () => (spawned = true) }));
    expect(result).toMatchObject({ stopped: true, pid: null, exitCode: null, spawnError: null });
    expect(spawned).toBe(false);
  });

  test('a child that ignores SIGTERM is killed after the grace', async () => {
    const controller = new AbortController();
    const result = await runProcess(
      agentSpec(
        { FAKE_MODE: 'ignore-term', FAKE_PRINT: 'ready\n' },
        { signal: controller.signal, onOutput: () => controller.abort(), stopGraceMs: 200 },
      ),
    );
    expect(result).toMatchObject({ stopped: true, signal: 'SIGKILL' });
    expect(isProcessGroupAlive(result.pid ?? 0)).toBe(false);
  });

  test('a kill during the stop grace ends the group at once, whatever is left of the grace', async () => {
    const stop = new AbortController();
    const kill = new AbortController();
    // A grace far beyond the test's timeout: only the kill can end this run in time.
    const result = await runProcess(
      agentSpec(
        { FAKE_MODE: 'ignore-term', FAKE_PRINT: 'ready\n' },
        {
          signal: stop.signal,
          kill: kill.signal,
          stopGraceMs: 600_000,
          onOutput: () => {
            stop.abort();
            kill.abort();
          },
        },
      ),
    );
    expect(result).toMatchObject({ stopped: true, signal: 'SIGKILL' });
    expect(isProcessGroupAlive(result.pid ?? 0)).toBe(false);
  });

  test('a 100 MB flood is logged up to the cap, with a bounded tail', async () => {
    const logFile = join(tempDir(), 'flood.log');
    const floodBytes = 100 * 1024 * 1024;
    const logMaxBytes = 1024 * 1024;
    let seen = 0;
    const result = await runProcess(
      agentSpec(
        { FAKE_MODE: 'flood', FAKE_FLOOD_BYTES: String(floodBytes) },
        { logFile, logMaxBytes, tailBytes: 4096, onOutput: (chunk) => (seen += chunk.length) },
      ),
    );
    expect(result).toMatchObject({ exitCode: 0, outputBytes: floodBytes, logTruncated: true, logError: null });
    expect(seen).toBe(floodBytes);
    expect(Buffer.byteLength(result.stdoutTail)).toBe(4096);
    expect(result.stdoutTail).toMatch(/^[a-z0-9 \n]+$/);
    const log = readFileSync(logFile, 'utf8');
    const line = truncationLine(logMaxBytes);
    expect(log.endsWith(line)).toBe(true);
    expect(log.indexOf('[wiggum: output truncated')).toBe(log.length - line.length);
    // The cut falls inside a line of output, so the note starts on a line of its own.
    expect(Buffer.byteLength(log)).toBe(logMaxBytes + 1 + line.length);
  });

  test.each([
    ['leaves after SIGTERM', '0'],
    ['ignores SIGTERM', '1'],
  ])('a grandchild left running after the leader exits is killed (it %s)', async (_, ignoreTerm) => {
    const pidFile = join(tempDir(), 'pids');
    const result = await runProcess(
      agentSpec(
        { FAKE_MODE: 'spawn-child', FAKE_PIDFILE: pidFile, FAKE_CHILD_IGNORE_TERM: ignoreTerm },
        { stopGraceMs: 200 },
      ),
    );
    expect(result).toMatchObject({ exitCode: 0, leftoverKilled: true, stdoutTail: 'spawned\n' });
    const pids = pidsIn(pidFile);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
    expect(isProcessGroupAlive(result.pid ?? 0)).toBe(false);
  });

  test('a stop kills the grandchildren too', async () => {
    const pidFile = join(tempDir(), 'pids');
    const controller = new AbortController();
    const result = await runProcess(
      agentSpec(
        { FAKE_MODE: 'spawn-child', FAKE_THEN: 'hang', FAKE_PIDFILE: pidFile, FAKE_CHILD_IGNORE_TERM: '1' },
        { signal: controller.signal, onOutput: () => controller.abort(), stopGraceMs: 200 },
      ),
    );
    expect(result).toMatchObject({ stopped: true, signal: 'SIGTERM', stdoutTail: 'spawned\n' });
    const pids = pidsIn(pidFile);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
  });

  test('the child receives stdin whole, and the tail is cut on a character boundary', async () => {
    const logFile = join(tempDir(), 'echo.log');
    const prompt = 'Implement the story. ünïcödé ✓ 🚀\n'.repeat(10_000); // larger than a pipe buffer
    const result = await runProcess(
      agentSpec(
        { FAKE_MODE: 'echo-stdin' },
        { stdin: prompt, logFile, logMaxBytes: 10 * 1024 * 1024, tailBytes: 1001 },
      ),
    );
    expect(result.exitCode).toBe(0);
    expect(readFileSync(logFile, 'utf8')).toBe(prompt);
    expect(result.stdoutTail.length).toBeGreaterThan(0);
    expect(result.stdoutTail).not.toContain('\uFFFD');
    expect(prompt.endsWith(result.stdoutTail)).toBe(true);
    expect(Buffer.byteLength(result.stdoutTail)).toBeLessThanOrEqual(1001);
  });

  test('a child that never reads its prompt is not an error', async () => {
    const result = await runProcess(agentSpec({ FAKE_MODE: 'succeed' }, { stdin: 'x'.repeat(4 * 1024 * 1024) }));
    expect(result).toMatchObject({ exitCode: 0, spawnError: null });
  });

  test('the child sees exactly the environment it is given, and the run marker', async () => {
    const result = await runProcess(
      agentSpec({ FAKE_MODE: 'print-env', WIGGUM_TASK_ID: 't-1' }, { tailBytes: 64 * 1024 }),
    );
    const seen = JSON.parse(result.stdoutTail) as Record<string, string>;
    expect(seen['WIGGUM_TASK_ID']).toBe('t-1');
    // and the run's marker, by which its processes are found wherever they go
    expect(
      Object.keys(seen)
        .filter((name) => !name.startsWith('FAKE_'))
        .sort(),
    ).toEqual(['PATH', 'WIGGUM_RUN_MARKER', 'WIGGUM_TASK_ID']);
    expect(seen['WIGGUM_RUN_MARKER']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('refuses to write the log through a symbolic link', async () => {
    const dir = tempDir();
    const target = join(dir, 'elsewhere');
    writeFileSync(target, '');
    const logFile = join(dir, 'run.log');
    symlinkSync(target, logFile);
    await expect(runProcess(agentSpec({}, { logFile }))).rejects.toMatchObject({ code: 'E_SYMLINK_REFUSED' });
    expect(readFileSync(target, 'utf8')).toBe('');
  });
});
