import { HEARTBEAT_MS } from '../queue/names.js';
import type { QueueHost } from '../queue/queue-host.js';
import type { Release } from '../releasers.js';
import type { Clock } from '../time/clock.js';
import type { StatusTracker } from './status-tracker.js';
import { workerStatuses } from './worker-status.js';

/**
 * With workers: who is alive, and how busy, for status.json and the Dashboard (their heartbeat
 * keys), read at once and then every heartbeat on the injected clock. Its release stops the reading.
 */
export function startReadingWorkers(
  host: Pick<QueueHost, 'workers'>,
  tracker: StatusTracker,
  clock: Clock,
  changed: () => void,
): Release {
  const stop = new AbortController();
  const readEvery = (firstMs: number): void => {
    clock.sleep(firstMs, stop.signal).then(
      async () => {
        const workers = await host.workers().catch(() => null);
        if (workers !== null) {
          tracker.setWorkers(workerStatuses(workers, clock.now(), HEARTBEAT_MS));
          // With workers, how many run at once is theirs to say: their concurrency, added up.
          tracker.concurrency = workers.reduce((sum, worker) => sum + worker.concurrency, 0);
          changed();
        }
        readEvery(HEARTBEAT_MS);
      },
      () => undefined, // released
    );
  };
  readEvery(0);
  return () => stop.abort();
}
