import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { acquireVaultLock } from '../../src/daemon/lock.js';
import { processStartTicks } from '../../src/lock/process-identity.js';
import { isWiggumError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('the vault lock', () => {
  test('holds pid, process start time and host; release removes it', async () => {
    const file = join(tempDir(), 'daemon.lock');
    const lock = await acquireVaultLock(file);
    const owner = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(owner.pid).toBe(process.pid);
    expect(owner.host).toBe(hostname());
    expect(owner.startTicks).toMatch(/^\d+$/);
    await lock.release();
    expect(existsSync(file)).toBe(false);
  });

  test('a live owner refuses a second lock, naming its pid', async () => {
    const file = join(tempDir(), 'daemon.lock');
    const first = await acquireVaultLock(file);
    const error = await acquireVaultLock(file).catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_LOCKED')).toBe(true);
    expect((error as Error).message).toContain(`pid ${process.pid}`);
    await first.release();
  });

  test('a dead owner is taken over, and said so', async () => {
    const file = join(tempDir(), 'daemon.lock');
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => child.once('exit', resolve));
    writeFileSync(file, JSON.stringify({ pid: child.pid, startTicks: '1', host: hostname(), startedAt: 'then' }));
    const lock = await acquireVaultLock(file);
    expect(lock.tookOverFrom?.pid).toBe(child.pid);
    await lock.release();
  });

  test('a reused pid (a live process with another start time) is stale too', async () => {
    const file = join(tempDir(), 'daemon.lock');
    writeFileSync(file, JSON.stringify({ pid: process.pid, startTicks: '1', host: hostname(), startedAt: 'long ago' }));
    const lock = await acquireVaultLock(file);
    expect(lock.tookOverFrom?.startTicks).toBe('1');
    await lock.release();
  });

  test('a lock from another host counts as live', async () => {
    const file = join(tempDir(), 'daemon.lock');
    writeFileSync(file, JSON.stringify({ pid: 12345, startTicks: '1', host: 'another-machine', startedAt: 'now' }));
    const error = await acquireVaultLock(file).catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_LOCKED')).toBe(true);
    expect((error as Error).message).toContain('on another-machine');
  });

  test('an unreadable lock file is treated as stale', async () => {
    const file = join(tempDir(), 'daemon.lock');
    writeFileSync(file, 'garbage');
    const lock = await acquireVaultLock(file);
    expect(lock.tookOverFrom).toBeNull();
    await lock.release();
  });

  test('a takeover left by a daemon killed while taking over a stale lock: the next start takes the lock at once', async () => {
    const dir = tempDir();
    const file = join(dir, 'daemon.lock');
    const killed = await deadPid();
    writeFileSync(file, JSON.stringify({ pid: killed, startTicks: '1', host: hostname(), startedAt: 'earlier' }));
    // Written just now (no age to wait out) by a process that is gone.
    writeFileSync(
      `${file}.takeover`,
      JSON.stringify({ pid: killed, startTicks: '1', host: hostname(), startedAt: 'now' }),
    );
    const lock = await acquireVaultLock(file);
    expect(lock.tookOverFrom?.pid).toBe(killed);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid });
    // Nothing of the takeover is left beside the lock and the stale one moved aside.
    expect(readdirSync(dir).sort()).toEqual(['daemon.lock', 'daemon.lock.stale']);
    await lock.release();
  });

  test('a takeover under way in a live process is left alone: the lock is refused, saying why', async () => {
    const dir = tempDir();
    const file = join(dir, 'daemon.lock');
    writeFileSync(
      file,
      JSON.stringify({ pid: await deadPid(), startTicks: '1', host: hostname(), startedAt: 'earlier' }),
    );
    const live = { pid: process.pid, startTicks: processStartTicks(process.pid), host: hostname(), startedAt: 'now' };
    writeFileSync(`${file}.takeover`, JSON.stringify(live));
    const error = await acquireVaultLock(file).catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_LOCKED')).toBe(true);
    expect((error as Error).message).toContain('is another wiggum starting?');
    expect(JSON.parse(readFileSync(`${file}.takeover`, 'utf8'))).toEqual(live);
  });
});

/** The pid of a process that has run and exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? -1;
}
