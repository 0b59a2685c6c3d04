import { Redis } from 'ioredis';
import type { QueueAddress } from './address.js';

/** An open Redis connection for BullMQ, and how to close it. */
export interface QueueConnection {
  readonly redis: Redis;
  /** Closes the connection: a clean QUIT when Redis answers, else a hard disconnect. Never throws. */
  readonly release: () => Promise<void>;
}

/** How long a clean QUIT may take before the connection is dropped. */
const QUIT_WAIT_MS = 2_000;

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
    // The certificate is checked (Node's default): a rediss:// Redis that cannot prove its name is refused.
    ...(address.tls ? { tls: { servername: address.host } } : {}),
    connectionName: name,
    // BullMQ's workers block on Redis (BZPOPMIN) and must keep retrying through a Redis restart rather
    // than fail a command after ioredis's default 20 retries: BullMQ refuses a worker connection
    // without this.
    maxRetriesPerRequest: null,
  });
  return {
    redis,
    release: async () => {
      // A QUIT waits for Redis, which may be down (commands queue until it is back): it gets a
      // moment, then the connection is dropped.
      if (redis.status !== 'ready') {
        redis.disconnect();
        return;
      }
      const quit = redis.quit().then(
        () => true,
        () => false,
      );
      const quitInTime = await Promise.race([
        quit,
        new Promise<false>((resolve) => setTimeout(() => resolve(false), QUIT_WAIT_MS).unref()),
      ]);
      if (!quitInTime) redis.disconnect();
    },
  };
}
