import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { killProcessGroup } from '../../src/harness/process-group.js';
import { isProcessGroupAlive } from '../../src/harness/group-signals.js';
import { tempDir } from '../helpers/temp-dir.js';

const fakeAgent = join(import.meta.dirname, '..', 'fixtures', 'agents', 'fake-agent.mjs');

describe('killProcessGroup', () => {
  test('kills a group found by its pid alone, as after a crash of wiggum', async () => {
    const pidFile = join(tempDir(), 'pids');
    // Started the way runProcess starts a harness, but not supervised by it: only the pid is known.
    const leader = spawn(fakeAgent, [], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: {
        PATH: process.env['PATH'] ?? '',
        FAKE_MODE: 'spawn-child',
        FAKE_THEN: 'hang',
        FAKE_PIDFILE: pidFile,
        FAKE_CHILD_IGNORE_TERM: '1',
      },
    });
    const exited = once(leader, 'exit');
    await once(leader.stdout, 'data'); // "spawned": the pid file is written
    const pgid = leader.pid ?? 0;
    expect(isProcessGroupAlive(pgid)).toBe(true);

    expect(await killProcessGroup(pgid, 200)).toBe(true);
    expect(isProcessGroupAlive(pgid)).toBe(false);
    const [, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect(signal).toBe('SIGTERM');
    expect(readFileSync(pidFile, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(await killProcessGroup(pgid, 200)).toBe(false);
  });

  test('never signals our own group or every process', async () => {
    expect(isProcessGroupAlive(0)).toBe(false);
    expect(isProcessGroupAlive(1)).toBe(false);
    expect(isProcessGroupAlive(-5)).toBe(false);
    expect(await killProcessGroup(process.pid, 10)).toBe(false);
  });
});
