import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { inProcessDaemonOptions } from '../helpers/in-process-daemon.js';
import { startDaemon } from '../../src/daemon/daemon.js';
import type { RunningDaemon } from '../../src/daemon/surface.js';
import { Scheduler } from '../../src/daemon/scheduler.js';
import type { Job } from '../../src/daemon/task-queue.js';
import { isWiggumError } from '../../src/errors.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { makeVault } from '../helpers/vault.js';

const TASK = '---\ntitle: One story\n---\n- [ ] US-001 One\n';

/** Drains and waits for the daemon to stop, collecting what it released and the lifecycle it went through. */
async function drained(daemon: RunningDaemon): Promise<{ released: string[]; lifecycle: string[]; code: number }> {
  const released: string[] = [];
  const lifecycle: string[] = [];
  daemon.events.on('released', ({ part }) => released.push(part));
  daemon.events.on('lifecycle', ({ state }) => lifecycle.push(state));
  daemon.drain('the test is over');
  const code = await daemon.stopped;
  return { released, lifecycle, code };
}

describe('the daemon in process: one lifecycle, typed events', () => {
  test('a dropped task is queued, runs and settles as events; a drain releases every part in reverse start order', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const daemon = await startDaemon(inProcessDaemonOptions(vault));
    expect(existsSync(vault.layout.lockFile)).toBe(true);
    const queued = daemon.events.next('queued', (event) => event.taskId === 'first');
    const settled = daemon.events.next('settled', (event) => event.taskId === 'first');
    vault.task('first', TASK);
    expect(await queued).toMatchObject({ name: 'first.md' });
    expect((await settled).result).toMatchObject({ status: 'done', iterations: 1 });
    expect(existsSync(join(vault.layout.done, 'first.md'))).toBe(true);

    const { released, lifecycle, code } = await drained(daemon);
    expect(code).toBe(0);
    expect(released).toEqual([
      'file watcher',
      'task queue',
      'lifecycle',
      'notifications',
      'stats',
      'status.json and Dashboard.md',
      'vault lock',
    ]);
    expect(lifecycle).toEqual(['draining', 'stopped']);
    expect(existsSync(vault.layout.lockFile)).toBe(false);
    // Written before the lock went: what `wiggum status` reads says the daemon stopped.
    expect(JSON.parse(readFileSync(vault.layout.statusFile, 'utf8'))).toMatchObject({ lifecycle: 'stopped' });
  });

  test('a drain interrupts a running task: it settles as interrupted before the queue is released', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '1' } });
    const daemon = await startDaemon(inProcessDaemonOptions(vault));
    const iterating = daemon.events.next('loop', (event) => event.type === 'iteration' && event.taskId === 'long');
    vault.task('long', TASK);
    await iterating;
    const order: string[] = [];
    daemon.events.on('settled', (event) => order.push(`settled ${event.taskId} ${event.result?.status ?? 'error'}`));
    daemon.events.on('released', ({ part }) => order.push(`released ${part}`));
    daemon.drain('the test is over');
    expect(await daemon.stopped).toBe(0);
    expect(order.slice(0, 3)).toEqual(['released file watcher', 'settled long interrupted', 'released task queue']);
    expect(readFileSync(join(vault.layout.approved, 'long.md'), 'utf8')).toMatch(/status: interrupted/);
  });

  test('a start that fails part-way releases what it had started: the vault lock is not left behind', async () => {
    const vault = await makeVault();
    const error = await startDaemon(
      inProcessDaemonOptions(vault, {
        createQueue: () => {
          throw new Error('no queue today');
        },
      }),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe('no queue today');
    expect(existsSync(vault.layout.lockFile)).toBe(false);
  });

  test('a second daemon on the same vault is refused with E_LOCKED, and the first keeps its lock', async () => {
    const vault = await makeVault();
    const first = await startDaemon(inProcessDaemonOptions(vault));
    const error = await startDaemon(inProcessDaemonOptions(vault)).catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_LOCKED')).toBe(true);
    expect(existsSync(vault.layout.lockFile)).toBe(true);
    await drained(first);
  });

  test('another queue can sit behind the TaskQueue interface', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const added: Job[] = [];
    const daemon = await startDaemon(
      inProcessDaemonOptions(vault, {
        createQueue: (concurrency, run, settled) => {
          const inner = new Scheduler(concurrency, run, settled);
          return Object.assign(Object.create(inner) as Scheduler, {
            add: (job: Job) => {
              added.push(job);
              return inner.add(job);
            },
          });
        },
      }),
    );
    const settled = daemon.events.next('settled', (event) => event.taskId === 'routed');
    vault.task('routed', TASK);
    expect((await settled).result?.status).toBe('done');
    expect(added.map((job) => job.id)).toEqual(['routed']);
    await drained(daemon);
  });

  test('an event listener that throws is logged and the daemon goes on', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const { logger, lines } = captureLogger();
    const daemon = await startDaemon(inProcessDaemonOptions(vault, { createLogger: () => logger }));
    daemon.events.on('queued', () => {
      throw new Error('a broken observer');
    });
    const settled = daemon.events.next('settled', (event) => event.taskId === 'observed');
    vault.task('observed', TASK);
    expect((await settled).result?.status).toBe('done');
    expect(lines.some((line) => line.event === 'daemon.listener-failed' && line.daemonEvent === 'queued')).toBe(true);
    await drained(daemon);
  });
});
