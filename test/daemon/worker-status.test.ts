import { expect, test } from 'vitest';
import { workerStatuses } from '../../src/daemon/worker-status.js';
import type { WorkerInfo } from '../../src/queue/worker-registry.js';

const info = (id: string, seenAtMs: number): WorkerInfo => ({
  id,
  host: 'box',
  pid: 7,
  concurrency: 2,
  harnesses: ['claude'],
  startedAtMs: 1_000,
  running: ['t'],
  seenAtMs,
});

test("the registry's entries as status.json lists them: each with its health by the host's clock", () => {
  const entries = [info('a', 100_000), info('b', 89_000), info('c', 84_000)];
  const statuses = workerStatuses(entries, 100_000, 5_000);
  expect(statuses).toEqual([
    { ...info('a', 100_000), health: 'ok' },
    { ...info('b', 89_000), health: 'late' },
    { ...info('c', 84_000), health: 'gone' },
  ]);
  // Its own arrays: the status never changes with the entries it came from.
  entries[0]?.running.push('u');
  expect(statuses[0]?.running).toEqual(['t']);
});
