import type { Clock } from '../time/clock.js';
import type { VaultSnapshot } from '../vault/scan.js';
import { stemOf } from '../vault/names.js';
import type { TaskQueue } from './task-queue.js';

const IDLE_CHECK_MS = 500;

/**
 * How many files in Approved/ could still start: neither stopped by their flag nor waiting for
 * their author. Before the first scan nothing is known, so something may. Pure.
 */
export function startableTasks(snapshot: VaultSnapshot | null, waitsForAuthor: (name: string) => boolean): number {
  if (snapshot === null) return 1;
  return [...snapshot.tasks.keys()].filter((name) => !snapshot.stopFlags.has(stemOf(name)) && !waitsForAuthor(name))
    .length;
}

/** Whether `--exit-when-idle` has nothing left to wait for: nothing runs, nothing is queued, nothing can start. Pure. */
export function isIdle(queue: Pick<TaskQueue, 'running' | 'waiting'>, startable: number): boolean {
  return queue.running().length === 0 && queue.waiting().length === 0 && startable === 0;
}

/**
 * `--exit-when-idle`: looks, on the injected clock, whether the daemon is idle, and calls `onIdle`
 * once it is; until then it looks again. `soon()` asks for a look (at start, after each run); one
 * is pending at a time. Its release cancels the pending look (a drain).
 */
export class IdleCheck {
  private readonly stop = new AbortController();
  private pending = false;

  constructor(
    private readonly clock: Clock,
    private readonly idle: () => boolean,
    private readonly onIdle: () => void,
  ) {}

  soon(): void {
    if (this.pending || this.stop.signal.aborted) return;
    this.pending = true;
    this.clock.sleep(IDLE_CHECK_MS, this.stop.signal).then(
      () => {
        this.pending = false;
        if (this.idle()) this.onIdle();
        else this.soon();
      },
      () => undefined, // released: a drain is under way
    );
  }

  release(): void {
    this.stop.abort();
  }
}
