import { Redis } from 'ioredis';
import type { QueueAddress } from './address.js';

/** An open Redis connection for BullMQ, and how to close it. */
export interface QueueConnection {
  readonly redis: Redis;
  /** Closes the connection: a clean QUIT when Redis answers, else a hard disconnect. Never throws. */
  readonly release: () => Promise<void>;
}

/**
 * Opens an ioredis connection to `address` with the options BullMQ needs. ioredis connects in the
 * background and reconnects by itself; callers wait on BullMQ's own readiness.
 */
export function openQueueConnection(address: QueueAddress, name: string): QueueConnection {
  const redis = new Redis({
    host: address.host,
    port: address.port,
    db: address.db,
    ...(address.username === undefined ? {} : { username: address.username }),
    ...(address.password === undefined ? {} : { password: address.password }),
    connectionName: name,
    // BullMQ's workers block on Redis (BZPOPMIN) and must keep retrying through a Redis restart rather
    // than fail a command after ioredis's default 20 retries: BullMQ refuses a worker connection
    // without this.
    maxRetriesPerRequest: null,
  });
  return {
    redis,
    release: async () => {
      try {
        await redis.quit();
      } catch {
        // Already closed, or Redis is gone: there is nothing left to close cleanly.
        redis.disconnect();
      }
    },
  };
}
