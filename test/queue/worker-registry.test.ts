import { describe, expect, onTestFinished, test } from 'vitest';
import { parseQueueUrl } from '../../src/queue/address.js';
import { openQueueConnection } from '../../src/queue/connection.js';
import {
  WORKER_KEY_PREFIX,
  publishWorker,
  readWorkers,
  removeWorker,
  workerHealth,
  workerId,
} from '../../src/queue/worker-registry.js';
import type { WorkerHealth, WorkerInfo } from '../../src/queue/worker-registry.js';
import { startRedis } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

const info = (id: string, change: Partial<WorkerInfo> = {}): WorkerInfo => ({
  id,
  host: 'box',
  pid: 4242,
  concurrency: 2,
  harnesses: null,
  startedAtMs: 1_000,
  running: [],
  seenAtMs: 10_000,
  ...change,
});

describe("a worker's health from when it last published (heartbeat 5 s, ttl 15 s)", () => {
  const HEARTBEAT = 5_000;
  const SEEN = 100_000;
  test.each<[string, number, WorkerHealth]>([
    ['just published', SEEN, 'ok'],
    ['its clock a little ahead of ours', SEEN - 2_000, 'ok'],
    ['one beat late', SEEN + 7_000, 'ok'],
    ['two beats exactly', SEEN + 10_000, 'ok'],
    ['past two beats', SEEN + 10_001, 'late'],
    ['at its ttl', SEEN + 15_000, 'late'],
    ['past its ttl', SEEN + 15_001, 'gone'],
    ['long gone', SEEN + 3_600_000, 'gone'],
  ])('%s', (_name, nowMs, health) => {
    expect(workerHealth(info('w', { seenAtMs: SEEN }), nowMs, HEARTBEAT)).toBe(health);
  });
});

describe("a worker's id", () => {
  test.each<[string, string, number, number, string]>([
    ['host, pid and start time in base 36', 'box', 4242, 1_800_000_000_000, 'box-4242-mywpiww0'],
    ['a domain name keeps its dots', 'w1.example.org', 7, 35, 'w1.example.org-7-z'],
    ['characters a table or a key would trip on become dashes', 'my box|2:x', 1, 0, 'my-box-2-x-1-0'],
    ['a host of nothing usable', '||', 1, 0, 'host-1-0'],
    ['a long host name is cut', 'a'.repeat(100), 1, 0, `${'a'.repeat(40)}-1-0`],
  ])('%s', (_name, host, pid, startedAtMs, id) => {
    expect(workerId(host, pid, startedAtMs)).toBe(id);
    expect(id).toMatch(/^[A-Za-z0-9._-]+$/);
  });

  test('two workers that share a host and a pid (containers) differ by their start', () => {
    expect(workerId('box', 1, 1_000)).not.toBe(workerId('box', 1, 2_000));
  });
});

describe('the registry in a real Redis', () => {
  async function connect(): Promise<ReturnType<typeof openQueueConnection>['redis']> {
    const server = await startRedis();
    const connection = openQueueConnection(parseQueueUrl(server.url), 'wiggum-test');
    onTestFinished(() => connection.release());
    return connection.redis;
  }

  test('published workers are read back, sorted by id; a removed one is not', async () => {
    const redis = await connect();
    const b = info('b', { harnesses: ['claude', 'codex'], running: ['t1', 't2'] });
    await publishWorker(redis, b, 60_000);
    await publishWorker(redis, info('a'), 60_000);
    await publishWorker(redis, info('c'), 60_000);
    expect(await readWorkers(redis)).toEqual([info('a'), b, info('c')]);

    await removeWorker(redis, 'c');
    expect((await readWorkers(redis)).map((worker) => worker.id)).toEqual(['a', 'b']);
  });

  test('an entry lives 3 × heartbeat unless published again, then Redis drops it', async () => {
    const redis = await connect();
    await publishWorker(redis, info('w'), 60_000);
    const ttl = await redis.pttl(`${WORKER_KEY_PREFIX}w`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);

    await publishWorker(redis, info('short'), 50);
    await waitFor(async () => (await redis.exists(`${WORKER_KEY_PREFIX}short`)) === 0, 'the entry to expire');
    expect((await readWorkers(redis)).map((worker) => worker.id)).toEqual(['w']);
  });

  test('a heartbeat replaces the entry whole', async () => {
    const redis = await connect();
    await publishWorker(redis, info('w', { running: ['t1'], seenAtMs: 1 }), 60_000);
    await publishWorker(redis, info('w', { running: [], seenAtMs: 2 }), 60_000);
    expect(await readWorkers(redis)).toEqual([info('w', { running: [], seenAtMs: 2 })]);
  });

  test('an entry that is not a worker is skipped, the others are listed', async () => {
    const redis = await connect();
    await publishWorker(redis, info('good'), 60_000);
    await redis.set(`${WORKER_KEY_PREFIX}not-json`, '{half');
    await redis.set(`${WORKER_KEY_PREFIX}wrong-shape`, JSON.stringify({ id: 'x', pid: 'one' }));
    await redis.set('wiggum:other', JSON.stringify(info('elsewhere')));
    // A newer worker may say more: what this wiggum reads is kept, the rest dropped.
    await redis.set(`${WORKER_KEY_PREFIX}newer`, JSON.stringify({ ...info('newer'), gpu: true }));
    expect(await readWorkers(redis)).toEqual([info('good'), info('newer')]);
  });

  test('many workers are all found (SCAN goes through every step)', async () => {
    const redis = await connect();
    const ids = Array.from({ length: 1_200 }, (_, i) => `w${String(i).padStart(4, '0')}`);
    const batch = redis.pipeline();
    for (const id of ids) batch.set(`${WORKER_KEY_PREFIX}${id}`, JSON.stringify(info(id)), 'PX', 60_000);
    await batch.exec();
    expect((await readWorkers(redis)).map((worker) => worker.id)).toEqual(ids);
  });

  test('no workers: an empty list', async () => {
    expect(await readWorkers(await connect())).toEqual([]);
  });

  test('a ttl under 1 ms is refused before Redis sees it', async () => {
    const redis = await connect();
    await expect(publishWorker(redis, info('w'), 0)).rejects.toMatchObject({ code: 'E_INTERNAL' });
  });
});
