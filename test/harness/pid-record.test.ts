import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { killRecordedHarness } from '../../src/harness/pid-record.js';
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
