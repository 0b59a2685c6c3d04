import { workerHealth } from '../queue/worker-registry.js';
import type { WorkerInfo } from '../queue/worker-registry.js';
import type { WorkerStatus } from './status.js';

/**
 * The workers as status.json lists them: each registry entry with its health at `nowMs` (the host's
 * clock), for `StatusTracker.setWorkers`. Pure.
 */
export function workerStatuses(workers: readonly WorkerInfo[], nowMs: number, heartbeatMs: number): WorkerStatus[] {
  return workers.map((worker) => ({
    id: worker.id,
    host: worker.host,
    pid: worker.pid,
    health: workerHealth(worker, nowMs, heartbeatMs),
    concurrency: worker.concurrency,
    running: [...worker.running],
    seenAtMs: worker.seenAtMs,
    startedAtMs: worker.startedAtMs,
    harnesses: worker.harnesses === null ? null : [...worker.harnesses],
  }));
}
