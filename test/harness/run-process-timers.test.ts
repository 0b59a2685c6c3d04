import { describe, expect, test } from 'vitest';
import { runProcess } from '../../src/harness/run-process.js';
import type { ProcessSpec } from '../../src/harness/run-process.js';
import type { MarkedProcess } from '../../src/harness/process-tree.js';
import { createFakeProcess, fakeHost } from '../helpers/fake-process.js';
import { settle } from '../helpers/manual-clock.js';

function spec(more: Partial<ProcessSpec> = {}): ProcessSpec {
  return {
    command: 'agent',
    args: [],
    cwd: '/',
    env: {},
    stdin: 'the prompt',
    timeoutMs: 0,
    idleTimeoutMs: 0,
    stopGraceMs: 1_000,
    logFile: null,
    logMaxBytes: 0,
    tailBytes: 1024,
    ...more,
  };
}

const MB = 1024 * 1024;

/** A process carrying the run's marker, as the fake process table shows it. */
function marked(pid: number, ppid: number, cpuMs: number, rssBytes = 0): MarkedProcess {
  return { pid, ppid, startTicks: pid, cpuMs, reapedChildrenCpuMs: 0, rssBytes, peakRssBytes: rssBytes };
}

/** Resolves to the result once runProcess is done; `done()` says whether it is. */
function started(promise: Promise<Awaited<ReturnType<typeof runProcess>>>): {
  result: typeof promise;
  done: () => boolean;
} {
  let finished = false;
  void promise.then(() => (finished = true));
  return { result: promise, done: () => finished };
}

describe('runProcess timers on a manual clock, with a fake process', () => {
  test('the per-run timeout sends SIGTERM to the group and says timedOut; output does not extend it', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const run = started(runProcess(spec({ timeoutMs: 10_000 }), host));
    await host.clock.advance(9_000);
    agent.print('still working\n');
    await host.clock.advance(999);
    expect(host.signals).toEqual([]);
    await host.clock.advance(1);
    const result = await run.result;
    expect(host.signals).toEqual(['SIGTERM']);
    expect(result).toMatchObject({ timedOut: true, idleTimedOut: false, stopped: false, signal: 'SIGTERM' });
  });

  test('output re-arms the idle timer: printing at 1 s with a 2 s idle limit stops at 3 s, not 2 s', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const run = started(runProcess(spec({ idleTimeoutMs: 2_000 }), host));
    await host.clock.advance(1_000);
    agent.print('still working\n');
    await host.clock.advance(1_000);
    expect(host.signals).toEqual([]);
    expect(run.done()).toBe(false);
    await host.clock.advance(999);
    expect(host.signals).toEqual([]);
    await host.clock.advance(1);
    const result = await run.result;
    expect(host.signals).toEqual(['SIGTERM']);
    expect(result).toMatchObject({ idleTimedOut: true, timedOut: false, stdoutTail: 'still working\n' });
  });

  test('output on stderr re-arms the idle timer too', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const run = started(runProcess(spec({ idleTimeoutMs: 2_000 }), host));
    await host.clock.advance(1_500);
    agent.printError('compiling\n');
    await host.clock.advance(1_999);
    expect(host.signals).toEqual([]);
    await host.clock.advance(1);
    const result = await run.result;
    expect(host.signals).toEqual(['SIGTERM']);
    expect(result).toMatchObject({ idleTimedOut: true, stderrTail: 'compiling\n' });
  });

  test('a process that ignores SIGTERM gets SIGKILL once the stop grace is over', async () => {
    const agent = createFakeProcess('ignore');
    const host = fakeHost(agent);
    const run = started(runProcess(spec({ timeoutMs: 5_000, stopGraceMs: 3_000 }), host));
    await host.clock.advance(5_000);
    expect(host.signals).toEqual(['SIGTERM']);
    await host.clock.advance(2_999);
    expect(host.signals).toEqual(['SIGTERM']);
    await host.clock.advance(1);
    const result = await run.result;
    expect(host.signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
  });

  test('an abort stops the group at once and says stopped', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const controller = new AbortController();
    const run = started(runProcess(spec({ timeoutMs: 60_000, signal: controller.signal }), host));
    await settle();
    controller.abort('stop-flag');
    const result = await run.result;
    expect(host.signals).toEqual(['SIGTERM']);
    expect(result).toMatchObject({ stopped: true, timedOut: false });
  });

  test('a leader that exits on its own clears every timer: nothing is signalled afterwards', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const run = started(runProcess(spec({ timeoutMs: 10_000, idleTimeoutMs: 2_000 }), host));
    await host.clock.advance(500);
    agent.print('<promise>COMPLETE</promise>\n');
    agent.exit(0);
    const result = await run.result;
    expect(result).toMatchObject({
      exitCode: 0,
      timedOut: false,
      idleTimedOut: false,
      stopped: false,
      leftoverKilled: false,
    });
    expect(host.clock.pending).toBe(0);
    await host.clock.advance(60_000);
    expect(host.signals).toEqual([]);
  });

  test('members left in the group after the leader exits are killed, and that is said', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const run = started(runProcess(spec(), host));
    await settle();
    agent.exit(0, null, true);
    const result = await run.result;
    expect(host.signals).toEqual(['SIGTERM']);
    expect(result).toMatchObject({ exitCode: 0, leftoverKilled: true });
  });

  test('the run is measured 50, 150 and 350 ms after the spawn, then every 500 ms on the host clock, and once more when the leader exits; then no more', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const table = host.processTable;
    table.marked = [marked(agent.pid, 1, 0, 5 * MB)];
    const run = started(runProcess(spec(), host));
    await settle();
    expect(table.looks).toBe(0); // nothing worth a look right after the spawn
    await host.clock.advance(49);
    expect(table.looks).toBe(0);
    await host.clock.advance(1);
    expect(table.looks).toBe(1);
    await host.clock.advance(100);
    expect(table.looks).toBe(2);
    await host.clock.advance(200);
    expect(table.looks).toBe(3);
    table.marked = [marked(agent.pid, 1, 200, 40 * MB), marked(agent.pid + 1, agent.pid, 100, 30 * MB)];
    await host.clock.advance(499);
    expect(table.looks).toBe(3);
    await host.clock.advance(1);
    expect(table.looks).toBe(4);
    table.marked = [marked(agent.pid, 1, 300, 45 * MB)];
    await host.clock.advance(500);
    expect(table.looks).toBe(5);
    table.marked = [];
    agent.exit(0);
    const result = await run.result;
    // The child's 100 ms count although it had gone (and the leader had not waited for it).
    expect(result).toMatchObject({ resources: { cpuMs: 300 + 100, peakRssBytes: 70 * MB }, straysKilled: 0 });
    expect(table.looks).toBe(6); // the last sample, which is also the look for strays
    await host.clock.advance(10_000);
    expect(table.looks).toBe(6);
    expect(host.clock.pending).toBe(0);
  });

  test('every run starts its process with a marker of its own, beside the environment it is given', async () => {
    const markers: (string | undefined)[] = [];
    for (let run = 0; run < 2; run += 1) {
      const agent = createFakeProcess('exit');
      const host = fakeHost(agent);
      const result = runProcess(spec({ env: { PATH: '/bin' } }), host);
      await settle();
      agent.exit(0);
      await result;
      expect(host.spawns[0]?.env['PATH']).toBe('/bin');
      markers.push(host.spawns[0]?.env['WIGGUM_RUN_MARKER']);
    }
    expect(markers[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(markers[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(markers[0]).not.toBe(markers[1]);
  });

  test('a marked process left outside the group after the leader exits gets SIGTERM, then SIGKILL after the grace', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const table = host.processTable;
    const stray = 50_000;
    const run = started(runProcess(spec({ stopGraceMs: 1_000 }), host));
    await settle();
    table.marked = [marked(stray, 1, 10)];
    table.ignoringTerm.add(stray);
    agent.exit(0);
    await settle();
    expect(table.signalled).toEqual([{ pid: stray, signal: 'SIGTERM' }]);
    await host.clock.advance(999);
    expect(table.signalled).toHaveLength(1);
    await host.clock.advance(1);
    expect(table.signalled).toEqual([
      { pid: stray, signal: 'SIGTERM' },
      { pid: stray, signal: 'SIGKILL' },
    ]);
    await host.clock.advance(20);
    const result = await run.result;
    // The group itself was empty: nothing was sent to it.
    expect(host.signals).toEqual([]);
    expect(result).toMatchObject({ exitCode: 0, leftoverKilled: false, straysKilled: 1, resources: { cpuMs: 10 } });
  });

  test('without a process table to look in, the run is not measured: resources is null', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    host.processTable.marked = null;
    const run = started(runProcess(spec(), host));
    await host.clock.advance(1_000);
    agent.exit(0);
    const result = await run.result;
    expect(result).toMatchObject({ resources: null, straysKilled: 0 });
  });

  test('a look that fails loses that sample only', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    host.processTable.marked = null;
    const run = started(runProcess(spec(), host));
    await settle();
    host.processTable.marked = [marked(agent.pid, 1, 120, 8 * MB)];
    await host.clock.advance(500);
    host.processTable.marked = null;
    agent.exit(0);
    const result = await run.result;
    expect(result).toMatchObject({ resources: { cpuMs: 120, peakRssBytes: 8 * MB }, straysKilled: 0 });
  });
});
