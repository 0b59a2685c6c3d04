import { describe, expect, test } from 'vitest';
import { runProcess } from '../../src/harness/run-process.js';
import type { ProcessSpec } from '../../src/harness/run-process.js';
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

/** Resolves to the result once runProcess is done; `done()` says whether it is. */
function started(promise: Promise<Awaited<ReturnType<typeof runProcess>>>): { result: typeof promise; done: () => boolean } {
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
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, idleTimedOut: false, stopped: false, leftoverKilled: false });
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
});
