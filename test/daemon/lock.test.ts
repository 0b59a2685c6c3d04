import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { acquireVaultLock } from '../../src/daemon/lock.js';
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
});
