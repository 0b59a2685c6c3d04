import { hostname } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'bullmq';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WiggumConfig } from '../config/config.js';
import { WiggumError } from '../errors.js';
import { plural } from '../plural.js';
import type { Logger } from '../log/logger.js';
import { AccountPauses } from '../loop/account-pauses.js';
import type { Clock } from '../time/clock.js';
import type { QueueAddress } from './address.js';
import { openQueueConnection } from './connection.js';
import { killOrphanHarnesses } from './orphan-harnesses.js';
import { HEARTBEAT_MS, QUEUE_NAME, SIGNAL_TTL_MS, failureKey } from './names.js';
import type { WorkerRef } from './progress.js';
import type { RunReturn } from './run-ending.js';
import { runJob } from './worker-run.js';
import { publishWorker, removeWorker, workerId } from './worker-registry.js';

export interface QueueWorkerOptions {
  address: QueueAddress;
  config: WiggumConfig;
  /** The worker's own folder for clones and private task copies (never in a vault). */
  root: string;
  concurrency: number;
  harnesses: readonly string[] | null;
  clock: Clock;
  random: () => number;
  logger: Logger;
  env: NodeJS.ProcessEnv;
}

export interface RunningQueueWorker {
  worker: WorkerRef;
  /** Resolves with the exit code once the worker has handed its runs back and closed its connections. */
  stopped: Promise<number>;
  /** SIGTERM/SIGINT: every run stops its agent and hands its job back at once; then the worker exits. */
  stop(why: string): void;
}

/**
 * `wiggum worker`: takes task runs from the queue, `concurrency` at a time, and runs each with the
 * same loop as the vault's machine (worker-run.ts). It never touches a vault: it reads and writes
 * only Redis, git remotes and its own folder.
 */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<RunningQueueWorker> {
  const { config, logger, clock } = options;
  const startedAtMs = clock.now();
  const host = hostname();
  const ref: WorkerRef = { id: workerId(host, process.pid, startedAtMs), host, pid: process.pid };
  // Before any job is taken: an agent a killed predecessor left must not work on beside a new run.
  for (const taskId of await killOrphanHarnesses(options.root, config))
    logger.warn(
      { event: 'harness.orphan-killed', taskId },
      `killed the agent of task ${taskId} that an earlier worker in this folder left running`,
    );
  const blocking = openQueueConnection(options.address, `wiggum-worker-${ref.id}`);
  const keys = openQueueConnection(options.address, `wiggum-worker-keys-${ref.id}`);
  const outage = watchOutages([blocking, keys], logger, options.address.shown);
  const handBack = new AbortController();
  const running = new Set<string>();
  const active = new Set<Promise<unknown>>();
  const context = {
    config,
    root: options.root,
    redis: keys.redis,
    worker: ref,
    harnesses: options.harnesses,
    missing: new Set<string>(),
    clock,
    random: options.random,
    logger,
    env: options.env,
    pauses: new AccountPauses(),
    handBack: handBack.signal,
    running,
  };
  const worker = new Worker<unknown, RunReturn>(
    QUEUE_NAME,
    (job: Job, token?: string) => {
      const run = runJob(job, token ?? '', context).catch(async (error: unknown) => {
        await keepFailureCode(keys.redis, job, error);
        throw error;
      });
      active.add(run);
      void run.finally(() => active.delete(run)).catch(() => undefined);
      return run;
    },
    {
      connection: blocking.redis,
      concurrency: options.concurrency,
      lockDuration: config.queue.lockDurationMs,
      stalledInterval: config.queue.stalledIntervalMs,
      maxStalledCount: config.queue.maxStalled,
      autorun: true,
    },
  );
  worker.on('error', (error) => {
    if (outage.now) return;
    logger.warn({ event: 'worker.error', err: error }, `the queue reported: ${describe(error)}`);
  });
  worker.on('failed', (job, error) => {
    if (job === undefined) return;
    logger.warn({ event: 'worker.job-failed', jobId: job.id, err: error }, `run ${job.id} failed: ${describe(error)}`);
  });

  const beat = async (): Promise<void> => {
    const info = {
      id: ref.id,
      host,
      pid: ref.pid,
      concurrency: options.concurrency,
      harnesses: options.harnesses === null ? null : [...options.harnesses],
      startedAtMs,
      running: [...running],
      seenAtMs: clock.now(),
    };
    await publishWorker(keys.redis, info, HEARTBEAT_MS * 3);
  };
  const heartbeat = setInterval(() => void beat().catch(() => undefined), HEARTBEAT_MS);
  void beat().catch(() => undefined);
  // Not awaited: a worker started before its Redis is up waits for it, and still stops on a signal.
  void worker.waitUntilReady().then(
    () =>
      logger.info(
        { event: 'worker.started', worker: ref.id, queue: options.address.shown, concurrency: options.concurrency },
        `worker ${ref.id} takes task runs from ${options.address.shown} (${options.concurrency} at a time${options.harnesses === null ? '' : `, harnesses ${options.harnesses.join(', ')}`})`,
      ),
    () => undefined,
  );

  let resolveStopped!: (code: number) => void;
  const stopped = new Promise<number>((resolve) => (resolveStopped = resolve));
  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info(
      { event: 'worker.stopping', why, running: running.size },
      running.size === 0 ? `${why}: stopping` : `${why}: stopping ${plural(running.size, 'run')} and handing them back`,
    );
    handBack.abort();
    void (async () => {
      // No new job is taken while the runs hand theirs back. BullMQ's calls wait for Redis, which
      // may be down: each gets a bounded moment, so that a stop never hangs on an outage.
      await bounded(worker.pause(true));
      await Promise.allSettled([...active]);
      clearInterval(heartbeat);
      await bounded(worker.close(true));
      await bounded(removeWorker(keys.redis, ref.id));
      await Promise.all([blocking.release(), keys.release()]);
      logger.info({ event: 'worker.stopped' }, 'stopped');
      resolveStopped(0);
    })();
  };
  return { worker: ref, stopped, stop };
}

/**
 * ioredis reports every failed reconnect: said once per outage, again once Redis was back. `now`
 * tells whether an outage is going on (the queue's own errors are not repeated meanwhile).
 */
function watchOutages(connections: readonly { redis: Redis }[], logger: Logger, shown: string): { now: boolean } {
  const outage = { now: false };
  for (const connection of connections) {
    connection.redis.on('error', (error: unknown) => {
      if (outage.now) return;
      outage.now = true;
      logger.warn(
        { event: 'worker.error', err: error },
        `cannot reach the queue's Redis at ${shown} (${describe(error)}): trying again`,
      );
    });
    connection.redis.on('ready', () => (outage.now = false));
  }
  return outage;
}

/** How long one step of a worker's stop may wait for Redis. */
const STOP_STEP_MS = 3_000;

/** Waits for `step` at most STOP_STEP_MS; its failure is ignored (the worker is stopping anyway). */
async function bounded(step: Promise<unknown>): Promise<void> {
  await Promise.race([
    step.catch(() => undefined),
    new Promise<void>((resolve) => setTimeout(resolve, STOP_STEP_MS).unref()),
  ]);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The worker's folder under its working directory: clones and private task copies. */
export function workerRoot(cwd: string): string {
  return join(cwd, '.wiggum', 'worker');
}

/**
 * BullMQ keeps a failure's message only: a WiggumError's code goes beside the job, for the host to
 * decide on (host-run.ts), before the job is failed; the message stays a person's.
 */
async function keepFailureCode(redis: Redis, job: Job, error: unknown): Promise<void> {
  if (error instanceof WiggumError && job.id !== undefined)
    await redis.set(failureKey(job.id), error.code, 'PX', SIGNAL_TTL_MS).catch(() => undefined);
}
