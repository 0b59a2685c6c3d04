import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Queue, QueueEvents } from 'bullmq';
import { expect, onTestFinished, test } from 'vitest';
import { killHard, REPO_ROOT } from '../helpers/child.js';
import { startRedis } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

const WORKER = join(REPO_ROOT, 'test', 'fixtures', 'queue', 'blocking-worker.mjs');
const QUEUE = 'smoke';
const TAKEOVER_GUARD_MS = 60_000;

interface WorkerProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly lines: string[];
}

/** A fixture worker process; every line it prints is kept, and it is killed when the test ends. */
function startWorker(name: string, port: number): WorkerProcess {
  const child = spawn(process.execPath, [WORKER], {
    cwd: REPO_ROOT,
    env: { ...process.env, REDIS_PORT: String(port), QUEUE, NAME: name },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  if (child.stdout !== null) createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  onTestFinished(() => killHard(child));
  return { name, child, lines };
}

const printed = (worker: WorkerProcess, prefix: string): boolean =>
  worker.lines.some((line) => line.startsWith(prefix));

// The facts the scale-out design stands on, checked on this machine with real processes: a job
// held by a worker killed with -9 stalls once its lock expires, and another worker takes it up
// from the progress the first one stored, without using an attempt.
test('a job whose worker is killed with -9 is taken up by the other worker from its stored progress', async () => {
  const redis = await startRedis();
  const connection = { host: '127.0.0.1', port: redis.port };
  const queue = new Queue(QUEUE, { connection });
  const events = new QueueEvents(QUEUE, { connection });
  onTestFinished(async () => {
    await events.close();
    await queue.close();
  });
  const stalled: string[] = [];
  events.on('stalled', ({ jobId }) => stalled.push(jobId));
  await events.waitUntilReady();

  const workers = [startWorker('w1', redis.port), startWorker('w2', redis.port)];
  await waitFor(() => workers.every((worker) => printed(worker, 'ready')), 'both workers to be ready');

  const job = await queue.add('run', { task: 'smoke' }, { jobId: 'task-smoke', attempts: 1 });
  await waitFor(
    () => workers.some((worker) => printed(worker, 'checkpointed task-smoke')),
    'a worker to checkpoint the job',
  );
  const holder = workers.find((worker) => printed(worker, 'checkpointed task-smoke'));
  const survivor = workers.find((worker) => worker !== holder);
  if (holder === undefined || survivor === undefined) throw new Error('one worker should hold the job');
  await killHard(holder.child);

  // A guard, not a budget: the takeover comes within lockDuration + stalledInterval (about 3 s).
  const result: unknown = await job.waitUntilFinished(events, TAKEOVER_GUARD_MS);

  expect(result).toStrictEqual({ worker: survivor.name, resumedFrom: { checkpoint: 1 } });
  expect(stalled).toContain('task-smoke');
  const done = await queue.getJob('task-smoke');
  expect(await done?.getState()).toBe('completed');
  // A stall is not an attempt: the one attempt allowed was enough for two runs.
  expect(done?.attemptsMade).toBe(1);
  expect(done?.attemptsStarted).toBe(2);
  expect(done?.stalledCounter).toBe(1);
});
