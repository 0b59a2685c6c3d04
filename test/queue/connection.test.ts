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
