import { Queue, QueueEvents } from 'bullmq';
import type { WiggumConfig } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { TaskEngine } from '../loop/request.js';
import type { QueueAddress } from './address.js';
import { openQueueConnection } from './connection.js';
import { runOnWorkers } from './host-run.js';
import { Wakers } from './wakers.js';
import { HOLD_KEY, QUEUE_NAME, SIGNAL_TTL_MS } from './names.js';
import type { Redis } from 'ioredis';
import { readWorkers } from './worker-registry.js';
import type { WorkerInfo } from './worker-registry.js';

/** How long closing the queue may wait for Redis before its connections are dropped. */
const CLOSE_WAIT_MS = 3_000;

/** The vault host's side of the queue: the engine the daemon runs tasks with, and the vault-wide hold. */
export interface QueueHost {
  readonly address: QueueAddress;
  readonly redis: Redis;
  readonly engine: TaskEngine;
  /** The vault's STOP file appeared or went: every worker holds its runs before their next iteration. */
  hold(on: boolean): void;
  /** The workers that said they are alive lately (their heartbeat keys). */
  workers(): Promise<WorkerInfo[]>;
  close(): Promise<void>;
}

/**
 * Opens the queue for `wiggum start --queue`. Redis is reached in the background and reached again
 * after an outage (ioredis); a failure to reach it is logged, never thrown at the daemon.
 */
export function openQueueHost(address: QueueAddress, config: WiggumConfig, logger: Logger): QueueHost {
  const connection = openQueueConnection(address, 'wiggum-vault-host');
  let said = false;
  connection.redis.on('error', (error: unknown) => {
    if (said) return;
    said = true;
    logger.warn(
      { event: 'queue.error', err: error },
      `cannot reach the queue's Redis at ${address.shown} (${error instanceof Error ? error.message : String(error)}): trying again`,
    );
  });
  connection.redis.on('ready', () => (said = false));
  const queue = new Queue(QUEUE_NAME, { connection: connection.redis });
  queue.on('error', () => undefined);
  // The queue's event stream wakes the run a job belongs to at once (a progress, its end, a
  // hand-back), so that the checkpoint is written before its worker starts the next iteration; the
  // runs still read the jobs themselves, so a missed event costs a poll, never a checkpoint.
  const eventsConnection = openQueueConnection(address, 'wiggum-vault-host-events');
  eventsConnection.redis.on('error', () => undefined);
  const events = new QueueEvents(QUEUE_NAME, { connection: eventsConnection.redis });
  events.on('error', () => undefined);
  const wakers = new Wakers();
  for (const name of ['progress', 'completed', 'failed', 'waiting', 'stalled', 'removed'] as const)
    events.on(name, (event: { jobId: string }) => wakers.wake(event.jobId));
  const host = { queue, redis: connection.redis, maxStalled: config.queue.maxStalled, wakers };
  const setHold = (on: boolean): void => {
    const done = on ? connection.redis.set(HOLD_KEY, '1', 'PX', SIGNAL_TTL_MS) : connection.redis.del(HOLD_KEY);
    void done.catch((error: unknown) =>
      logger.warn(
        { event: 'queue.error', err: error },
        'could not tell the workers about the STOP file; trying at the next change',
      ),
    );
  };
  return {
    address,
    redis: connection.redis,
    engine: (task, request, deps, reject) => runOnWorkers(host, task, request, deps, reject),
    hold: setHold,
    workers: () => readWorkers(connection.redis),
    close: async () => {
      // BullMQ's closes wait for Redis, which may be down: each gets a moment, then the
      // connections are dropped (connection.ts).
      await Promise.race([
        Promise.allSettled([events.close(), queue.close()]),
        new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref()),
      ]);
      await Promise.all([connection.release(), eventsConnection.release()]);
    },
  };
}
