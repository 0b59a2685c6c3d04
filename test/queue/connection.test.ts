import { Queue, Worker } from 'bullmq';
import { expect, test } from 'vitest';
import { parseQueueUrl } from '../../src/queue/address.js';
import { openQueueConnection } from '../../src/queue/connection.js';
import { startRedis } from '../helpers/redis.js';

test('a connection reaches a real redis-server and keeps its data through a restart (append-only file on)', async () => {
  const server = await startRedis();
  const { redis, release } = openQueueConnection(parseQueueUrl(server.url), 'wiggum-test');
  try {
    expect(await redis.ping()).toBe('PONG');
    await redis.set('wiggum:probe', 'kept');
    await server.restart();
    // maxRetriesPerRequest null: the command waits for the reconnection instead of failing.
    expect(await redis.get('wiggum:probe')).toBe('kept');
  } finally {
    await release();
  }
});

test('a second database number selects another keyspace', async () => {
  const server = await startRedis();
  const zero = openQueueConnection(parseQueueUrl(server.url), 'wiggum-test');
  const two = openQueueConnection(parseQueueUrl(`${server.url}/2`), 'wiggum-test');
  try {
    await zero.redis.set('wiggum:probe', 'db0');
    expect(await two.redis.get('wiggum:probe')).toBeNull();
  } finally {
    await zero.release();
    await two.release();
  }
});

test('a Redis with a password (requirepass): the URL with it connects and runs a BullMQ job, one without is refused, and no address shows it', async () => {
  const password = `pw-${process.pid}-queue/@:x`;
  const server = await startRedis({ password });
  const address = parseQueueUrl(server.url);
  expect(address.shown).not.toContain(password);
  expect(address.shown).toBe(`redis://:***@127.0.0.1:${server.port}`);
  const { redis, release } = openQueueConnection(address, 'wiggum-test');
  const none = openQueueConnection(parseQueueUrl(`redis://127.0.0.1:${server.port}`), 'wiggum-test-no-password');
  const wrong = openQueueConnection(parseQueueUrl(`redis://:not-it@127.0.0.1:${server.port}`), 'wiggum-test-wrong');
  for (const refused of [none, wrong]) refused.redis.on('error', () => undefined);
  const queue = new Queue('auth-probe', { connection: redis });
  const workerConnection = openQueueConnection(address, 'wiggum-test-worker');
  const worker = new Worker<{ n: number }>('auth-probe', (job) => Promise.resolve(`ran ${job.data.n}`), {
    connection: workerConnection.redis,
  });
  try {
    expect(await redis.ping()).toBe('PONG');
    await expect(none.redis.ping()).rejects.toThrow(/NOAUTH/);
    await expect(wrong.redis.ping()).rejects.toThrow(/WRONGPASS|invalid password/i);
    const done = new Promise<unknown>((resolve) => worker.once('completed', (_job, value) => resolve(value)));
    await queue.add('probe', { n: 7 });
    expect(await done).toBe('ran 7');
  } finally {
    await worker.close();
    await queue.close();
    for (const connection of [workerConnection, none, wrong]) await connection.release();
    await release();
  }
});
