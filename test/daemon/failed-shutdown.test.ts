import { existsSync } from 'node:fs';
import { expect, test } from 'vitest';
import { inProcessDaemonOptions } from '../helpers/in-process-daemon.js';
import { startDaemon } from '../../src/daemon/daemon.js';
import { Scheduler } from '../../src/daemon/scheduler.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { makeVault } from '../helpers/vault.js';

test('a drain whose release throws still releases the rest, and the daemon stops with code 1 (a failed shutdown)', async () => {
  const vault = await makeVault();
  const { logger, lines } = captureLogger();
  const daemon = await startDaemon(
    inProcessDaemonOptions(vault, {
      createLogger: () => logger,
      createQueue: (concurrency, run, settled) => {
        const inner = new Scheduler(concurrency, run, settled);
        return Object.assign(Object.create(inner) as Scheduler, {
          pause: () => {
            throw new Error('the queue would not pause');
          },
        });
      },
    }),
  );
  const released: string[] = [];
  daemon.events.on('released', ({ part }) => released.push(part));
  daemon.drain('the test is over');
  expect(await daemon.stopped).toBe(1);
  // The failure did not cut the release short: the parts after it went too, the lock last.
  expect(released).toEqual([
    'file watcher',
    'task queue',
    'lifecycle',
    'notifications',
    'stats',
    'status.json and Dashboard.md',
    'vault lock',
  ]);
  expect(existsSync(vault.layout.lockFile)).toBe(false);
  expect(lines.filter((line) => line.level >= 50).map((line) => line.part ?? line.parts)).toEqual([
    'task queue',
    ['task queue'],
  ]);
});
