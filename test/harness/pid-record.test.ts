import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import {
  emptyHarnessRecord,
  killRecordedHarness,
  recordHarness,
  recordHarnessMarker,
} from '../../src/harness/pid-record.js';
import { RUN_MARKER_VARIABLE } from '../../src/harness/process-tree.js';
import { createFakeProcess, fakeHost } from '../helpers/fake-process.js';
import type { FakeProcess } from '../helpers/fake-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A harness.json naming `agent`, as a wiggum that crashed mid-iteration leaves it. */
function recordOf(agent: FakeProcess): string {
  const file = join(tempDir(), 'harness.json');
  writeFileSync(file, `${JSON.stringify({ pid: agent.pid, startTicks: null })}\n`);
  return file;
}

describe('killRecordedHarness with a fake process host', () => {
  test('a recorded group still running gets SIGTERM; the record is removed', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const file = recordOf(agent);
    expect(await killRecordedHarness(file, 1_000, host)).toBe(true);
    expect(host.signals).toEqual(['SIGTERM']);
    expect(existsSync(file)).toBe(false);
  });

  test('a recorded group that ignores SIGTERM gets SIGKILL once the grace is over, not before', async () => {
    const agent = createFakeProcess('ignore');
    const host = fakeHost(agent);
    let killed: boolean | null = null;
    const done = killRecordedHarness(recordOf(agent), 4_000, host).then((result) => (killed = result));
    await host.clock.sleeping(); // the record is read from disk first
    await host.clock.advance(3_990);
    expect(host.signals).toEqual(['SIGTERM']);
    await host.clock.advance(20);
    await done;
    expect(killed).toBe(true);
    expect(host.signals).toEqual(['SIGTERM', 'SIGKILL']);
  });

  test('a recorded group that is gone is not signalled; the record is removed all the same', async () => {
    const agent = createFakeProcess('exit');
    agent.exit(0);
    const host = fakeHost(agent);
    const file = recordOf(agent);
    expect(await killRecordedHarness(file, 1_000, host)).toBe(false);
    expect(host.signals).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });
});

describe('killRecordedHarness and the processes that left the group', () => {
  test('what still carries the recorded marker is killed, even once the group is gone', async () => {
    const agent = createFakeProcess('exit');
    agent.exit(0);
    const host = fakeHost(agent);
    const stray = 50_000;
    host.processTable.marked = [
      { pid: stray, ppid: 1, startTicks: 7, cpuMs: 0, reapedChildrenCpuMs: 0, rssBytes: 0, peakRssBytes: 0 },
    ];
    const file = join(tempDir(), 'harness.json');
    writeFileSync(file, `${JSON.stringify({ pid: agent.pid, startTicks: null, marker: 'run-1' })}\n`);
    const killed = killRecordedHarness(file, 1_000, host);
    await host.clock.sleeping(); // the record is read from disk first; then it waits for the stray to go
    await host.clock.advance(20);
    expect(await killed).toBe(true);
    expect(host.signals).toEqual([]);
    expect(host.processTable.signalled).toEqual([{ pid: stray, signal: 'SIGTERM' }]);
    expect(existsSync(file)).toBe(false);
  });

  test.runIf(process.platform === 'linux')(
    'a real background job in a session of its own, found by the marker recorded at spawn',
    async () => {
      const marker = `pid-record-${process.pid}-${Date.now()}`;
      const job = spawn('setsid', ['sleep', '300'], {
        env: { PATH: process.env['PATH'] ?? '', [RUN_MARKER_VARIABLE]: marker },
        stdio: 'ignore',
      });
      onTestFinished(() => void job.kill('SIGKILL'));
      const exited = once(job, 'exit');
      // Until its exec, the child's /proc environ is still node's, without the marker.
      await once(job, 'spawn');
      const file = join(tempDir(), 'harness.json');
      await recordHarness(file, 999_999_999, marker); // the leader is long gone
      expect(await killRecordedHarness(file, 200)).toBe(true);
      expect((await exited)[1]).toBe('SIGTERM');
    },
  );

  test.runIf(process.platform === 'linux')(
    'a harness whose pid was never recorded (wiggum killed right after the spawn) is found by the marker recorded before it',
    async () => {
      const marker = `pid-record-early-${process.pid}-${Date.now()}`;
      const file = join(tempDir(), 'harness.json');
      recordHarnessMarker(file, marker);
      const agent = spawn('sleep', ['300'], {
        env: { PATH: process.env['PATH'] ?? '', [RUN_MARKER_VARIABLE]: marker },
        stdio: 'ignore',
        detached: true,
      });
      onTestFinished(() => void agent.kill('SIGKILL'));
      const exited = once(agent, 'exit');
      expect(await killRecordedHarness(file, 200)).toBe(true);
      expect((await exited)[1]).toBe('SIGTERM');
      expect(existsSync(file)).toBe(false);
    },
  );
});

describe('the record written over the marker record, in place', () => {
  // A pid of two digits with no process behind it: its record is two characters shorter than the marker's.
  const shortPid = Array.from({ length: 89 }, (_, index) => index + 11).find((pid) => !existsSync(`/proc/${pid}`));
  test.runIf(process.platform === 'linux' && shortPid !== undefined).each([
    { name: 'a record shorter than the marker record', pid: shortPid! },
    { name: 'a record longer than the marker record', pid: 4_194_303 },
  ])('$name: the file holds exactly one record, the new one', async ({ pid }) => {
    const file = join(tempDir(), 'harness.json');
    recordHarnessMarker(file, 'marker-of-this-run');
    await recordHarness(file, pid, 'marker-of-this-run');
    const record = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; marker: string };
    expect(record).toMatchObject({ pid, marker: 'marker-of-this-run' });
  });

  test('an emptied record (the run over) names nothing to kill, and the next marker record replaces it', async () => {
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const file = recordOf(agent);
    emptyHarnessRecord(file);
    expect(await killRecordedHarness(file, 1_000, host)).toBe(false);
    expect(host.signals).toEqual([]);
    recordHarnessMarker(file, 'next-run');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ pid: null, startTicks: null, marker: 'next-run' });
  });

  test('the next marker record replaces a longer record whole', async () => {
    const file = join(tempDir(), 'harness.json');
    await recordHarness(file, 4_194_303, 'a-much-longer-marker-from-the-run-before');
    recordHarnessMarker(file, 'short');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ pid: null, startTicks: null, marker: 'short' });
  });
});
