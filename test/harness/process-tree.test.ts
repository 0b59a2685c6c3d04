import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { parsePidCounters, pidsInWindow, runPidWindow } from '../../src/harness/pid-window.js';
import { RUN_MARKER_VARIABLE, procProcessTable, systemProcessTable } from '../../src/harness/process-tree.js';
import { runProcess } from '../../src/harness/run-process.js';
import type { ProcessSpec } from '../../src/harness/run-process.js';
import { processStartTicks } from '../../src/lock/process-identity.js';
import { tempDir } from '../helpers/temp-dir.js';
import { isRunning } from '../helpers/process-state.js';

const PATH = process.env['PATH'] ?? '';

/**
 * Node code that uses `ms` of CPU time, measured by the process itself: a loop on the wall clock
 * would get less than that on a loaded or throttled machine.
 */
const burnCpu = (ms: number): string =>
  `for (let used = 0; used < ${ms * 1000}; ) { const { user, system } = process.cpuUsage(); used = user + system; }`;

/** Node code that writes the CPU time its process has used, as the process measures it (ms), to `file`. */
const sayCpu = (file: string): string =>
  `{ const { user, system } = process.cpuUsage(); require('node:fs').writeFileSync(${JSON.stringify(file)}, String((user + system) / 1000)); }`;

/** What a child wrote with `sayCpu` (or a number of any kind), summed over `files`. */
const saidTotal = (...files: string[]): number =>
  files.reduce((sum, file) => sum + Number(readFileSync(file, 'utf8')), 0);

/**
 * The kernel counts a process's CPU time in clock ticks (10 ms), user and system apart, rounded
 * down: a tree's figure may fall short of the child's own by up to two ticks. No figure of the
 * machine's speed is asserted (npm run bench and test:reliability report those).
 */
const TICK_ROUNDING_MS = 20;

/** A run of `command` with short limits; `env` is added to PATH. */
function runSpec(command: string, args: string[], env: Record<string, string> = {}): ProcessSpec {
  return {
    command,
    args,
    cwd: tempDir(),
    env: { PATH, ...env },
    stdin: '',
    timeoutMs: 30_000,
    idleTimeoutMs: 0,
    stopGraceMs: 200,
    logFile: null,
    logMaxBytes: 0,
    tailBytes: 4096,
  };
}

/** A shell script as the agent. */
const shell = (script: string, env: Record<string, string> = {}): ProcessSpec =>
  runSpec('/bin/sh', ['-c', script], env);
/** A node script as the agent. */
const node = (script: string): ProcessSpec => runSpec(process.execPath, ['-e', script]);

/**
 * Starts `sleep 300` in a session of its own, as an agent's shell tool starts a background job,
 * and writes "<its pid> <its session id>" to $PID_FILE once it is the sleep (so the new session
 * is made: setsid runs setsid(2), then execs). `prefix` goes before the sleep (a trap, say).
 */
const startStray = (prefix = ''): string => `
setsid sh -c '${prefix} exec sleep 300' &
stray=$!
until [ "$(cat /proc/$stray/comm 2>/dev/null)" = sleep ]; do sleep 0.01; done
echo "$stray $(cut -d' ' -f6 /proc/$stray/stat)" > "$PID_FILE"
`;

/** The stray's pid, after checking that it did lead a session of its own (its group never reaches it). */
function strayPid(pidFile: string): number {
  const [pid, session] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
  expect(session).toBe(pid);
  return pid ?? 0;
}

/** A `sleep 300` the test starts itself, killed when the test ends. */
function bystander(env: Record<string, string>): number {
  const child = spawn('sleep', ['300'], { env: { PATH, ...env }, stdio: 'ignore' });
  onTestFinished(() => void child.kill('SIGKILL'));
  return child.pid ?? 0;
}

describe.runIf(process.platform === 'linux')('the processes of a run, found by its marker', () => {
  test('a background job in a session of its own outlives the agent, and is killed after the run', async () => {
    const pidFile = join(tempDir(), 'stray');
    // The job keeps our stdout and stderr open, as `sleep 101 &` in an agent's shell does.
    const result = await runProcess(shell(startStray(), { PID_FILE: pidFile }));
    const stray = strayPid(pidFile);
    expect(result).toMatchObject({ exitCode: 0, straysKilled: 1, leftoverKilled: false });
    expect(isRunning(stray)).toBe(false);
  });

  test('a background job that ignores SIGTERM gets SIGKILL after the stop grace', async () => {
    const pidFile = join(tempDir(), 'stray');
    const result = await runProcess(shell(`${startStray('trap "" TERM;')} echo started`, { PID_FILE: pidFile }));
    const stray = strayPid(pidFile);
    expect(result).toMatchObject({ exitCode: 0, straysKilled: 1, stdoutTail: 'started\n' });
    expect(isRunning(stray)).toBe(false);
  });

  test('a stopped run kills its strays too', async () => {
    const pidFile = join(tempDir(), 'stray');
    const spec = shell(`${startStray()} echo started; exec sleep 300`, { PID_FILE: pidFile });
    const controller = new AbortController();
    const result = await runProcess({ ...spec, signal: controller.signal, onOutput: () => controller.abort() });
    const stray = strayPid(pidFile);
    expect(result).toMatchObject({ stopped: true, signal: 'SIGTERM', straysKilled: 1 });
    expect(isRunning(stray)).toBe(false);
  });

  test('processes without the marker, or with another run’s, are never touched', async () => {
    const pidFile = join(tempDir(), 'stray');
    const unmarked = bystander({});
    const otherRun = bystander({ [RUN_MARKER_VARIABLE]: 'another-run' });
    const result = await runProcess(shell(startStray(), { PID_FILE: pidFile }));
    expect(result.straysKilled).toBe(1);
    expect(isRunning(strayPid(pidFile))).toBe(false);
    expect(isRunning(unmarked)).toBe(true);
    expect(isRunning(otherRun)).toBe(true);
  });

  test('a run with nothing left over kills nothing', async () => {
    const result = await runProcess(shell('echo done'));
    expect(result).toMatchObject({ exitCode: 0, straysKilled: 0, leftoverKilled: false });
    expect(result.resources).not.toBeNull();
  });

  test('the marker must match a whole variable exactly', () => {
    const marker = 'run-4f1c';
    const marked = bystander({ [RUN_MARKER_VARIABLE]: marker });
    bystander({ [RUN_MARKER_VARIABLE]: `${marker}0` });
    bystander({ [`X${RUN_MARKER_VARIABLE}`]: marker });
    bystander({ QUOTED: `${RUN_MARKER_VARIABLE}=${marker}` });
    // spawn returns once the child has exec'd: its environment is the new one already.
    const found = systemProcessTable.findMarked(marker);
    expect(found?.map((one) => one.pid)).toEqual([marked]);
    const [sleep] = found ?? [];
    expect(sleep).toMatchObject({ pid: marked, ppid: process.pid, startTicks: Number(processStartTicks(marked)) });
    expect(sleep?.rssBytes).toBeGreaterThan(0);
    expect(sleep?.peakRssBytes).toBeGreaterThanOrEqual(sleep?.rssBytes ?? 0);
    expect(systemProcessTable.findMarked('no-run-has-this-marker')).toEqual([]);
  });

  test('given the pid counters read before a spawn, a look reads only the processes started since', () => {
    const marker = 'run-7a2e';
    const older = bystander({ [RUN_MARKER_VARIABLE]: marker });
    const before = systemProcessTable.pidCounters();
    expect(before).not.toBeNull();
    if (before === null) return;
    const leader = bystander({ [RUN_MARKER_VARIABLE]: marker });
    const child = bystander({ [RUN_MARKER_VARIABLE]: marker });
    const pids = (found: { pid: number }[] | null): number[] => (found ?? []).map((one) => one.pid).sort();
    expect(pids(systemProcessTable.findMarked(marker))).toEqual([older, leader, child].sort());
    expect(pids(systemProcessTable.findMarked(marker, { leaderPid: leader, before }))).toEqual([leader, child].sort());
  });

  test('the counters a look read stand for the ones before the next spawn while they are recent', () => {
    let nowMs = 0;
    const table = procProcessTable(() => nowMs);
    const marker = 'run-3b8f';
    const first = table.pidCounters();
    expect(first).not.toBeNull();
    if (first === null) return;
    const older = bystander({ [RUN_MARKER_VARIABLE]: marker });
    // The look after a run reads the counters: the next spawn takes them as its own "before".
    table.findMarked(marker, { leaderPid: older, before: first });
    const before = table.pidCounters();
    expect(before).not.toBe(first);
    expect(table.pidCounters()).toBe(before);
    if (before === null) return;
    const leader = bystander({ [RUN_MARKER_VARIABLE]: marker });
    const child = bystander({ [RUN_MARKER_VARIABLE]: marker });
    const pids = (found: { pid: number }[] | null): number[] => (found ?? []).map((one) => one.pid).sort();
    expect(pids(table.findMarked(marker, { leaderPid: leader, before }))).toEqual([leader, child].sort());
    nowMs += 1_000;
    expect(table.pidCounters()).not.toBe(before);
    // Without a clock every reading is fresh.
    expect(systemProcessTable.pidCounters()).not.toBe(systemProcessTable.pidCounters());
  });

  test('a look in a short window tries its pids one by one, and takes no thread for a process', async (ctx) => {
    const marker = 'run-9c1d';
    const before = systemProcessTable.pidCounters();
    expect(before).not.toBeNull();
    if (before === null) return;
    // node starts threads of its own at once: their ids are pids handed out right after the leader's.
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300_000)'], {
      env: { PATH, [RUN_MARKER_VARIABLE]: marker },
      stdio: 'ignore',
    });
    onTestFinished(() => void child.kill('SIGKILL'));
    const leader = child.pid ?? 0;
    const threads = (): number[] => readdirSync(`/proc/${leader}/task`).map(Number);
    while (threads().length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const found = systemProcessTable.findMarked(marker, { leaderPid: leader, before });
    const now = parsePidCounters(readFileSync('/proc/stat', 'latin1'), readFileSync('/proc/loadavg', 'latin1'));
    const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'latin1'));
    const window = now === null ? null : runPidWindow(leader, before, now, pidMax);
    const tried = window === null ? null : pidsInWindow(window, pidMax);
    // A machine that handed out too many pids meanwhile lists /proc instead, which shows no threads.
    if (tried === null || !threads().some((tid) => tid !== leader && tried.includes(tid))) ctx.skip();
    expect(found?.map((one) => one.pid)).toEqual([leader]);
  });
});

describe.runIf(process.platform === 'linux')('what a run used', () => {
  // Each child stays idle for a while after the work, so that a sample sees it done: the leader's
  // last moments before it exits are what sampling cannot see (wiggum reaps it).
  test('the CPU time of a busy child: at least what the child itself used', async () => {
    const said = join(tempDir(), 'cpu');
    const result = await runProcess(node(`${burnCpu(500)} ${sayCpu(said)} setTimeout(() => {}, 1200);`));
    expect(result.exitCode).toBe(0);
    expect(result.resources?.cpuMs).toBeGreaterThanOrEqual(saidTotal(said) - TICK_ROUNDING_MS);
  });

  test('the peak memory of a child that holds 50 MB: at least what the child itself had', async () => {
    const said = join(tempDir(), 'rss');
    const result = await runProcess(
      node(
        `const kept = Buffer.alloc(50 * 1024 * 1024, 1); require('node:fs').writeFileSync(${JSON.stringify(said)}, String(process.memoryUsage().rss)); setTimeout(() => kept.length, 1200);`,
      ),
    );
    expect(result.exitCode).toBe(0);
    expect(result.resources?.peakRssBytes).toBeGreaterThanOrEqual(saidTotal(said));
  });

  test('the CPU time of short-lived children the agent waited for, which no sample saw', async () => {
    // Two children of 300 ms of CPU each, one after the other: most of it between samples.
    const dir = tempDir();
    const said = [join(dir, 'cpu-0'), join(dir, 'cpu-1')];
    const burns = said.map((file) => `${burnCpu(300)} ${sayCpu(file)}`);
    const agent = `const { spawnSync } = require('node:child_process');
for (const burn of ${JSON.stringify(burns)}) spawnSync(process.execPath, ['-e', burn]);
setTimeout(() => {}, 1200);`;
    const result = await runProcess(node(agent));
    expect(result.exitCode).toBe(0);
    expect(result.resources?.cpuMs).toBeGreaterThanOrEqual(saidTotal(...said) - 2 * TICK_ROUNDING_MS);
  });

  test('the CPU time of a background job in a session of its own counts too', async () => {
    const done = join(tempDir(), 'burned');
    const burn = `${burnCpu(500)} ${sayCpu(done)} setInterval(() => {}, 1 << 30);`;
    const script = `setsid ${JSON.stringify(process.execPath)} -e ${shellQuote(burn)} &
until [ -e ${JSON.stringify(done)} ]; do sleep 0.02; done`;
    const result = await runProcess(shell(script));
    expect(result).toMatchObject({ exitCode: 0, straysKilled: 1 });
    expect(result.resources?.cpuMs).toBeGreaterThanOrEqual(saidTotal(done) - TICK_ROUNDING_MS);
  });
});

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
