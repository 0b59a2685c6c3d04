import { existsSync } from 'node:fs';
import { plural } from '../plural.js';
import type { Release } from '../releasers.js';
import { reviewHolds } from './review-desk.js';
import type { TaskIntake } from './intake.js';
import type { DaemonParts } from './parts.js';

/**
 * How often Review/ and Done/ are read for a person's approvals (at most; rescan_interval if
 * shorter): a readdir of each, and a read only of names new to Done/, so it is cheap.
 */
const REVIEW_SWEEP_MS = 2_000;

/** What the review sweep reads and starts in the daemon. */
export type ReviewSweepParts = Pick<DaemonParts, 'reviews' | 'config' | 'clock' | 'logger' | 'draining' | 'figures'> & {
  readonly intake: TaskIntake;
};

/**
 * Reads Review/ and Done/ (review-desk.ts), then starts the tasks held for `review.max_pending`
 * once fewer wait for review. A task held meanwhile moved or deleted is dropped.
 */
export async function sweepReviews(parts: ReviewSweepParts): Promise<void> {
  const { reviews } = parts;
  await reviews.sweep();
  // A person's moves (an approval, a retry) change the figures too.
  parts.figures.refresh();
  const maxPending = parts.config.review.maxPending;
  if (reviews.heldCount === 0 || parts.draining) return;
  if (maxPending !== null && reviewHolds(reviews.pendingCount, maxPending)) return;
  const held = reviews.release();
  parts.logger.info(
    { event: 'review.released', tasks: held.map((task) => task.name) },
    `fewer tasks wait for review: starting ${plural(held.length, 'held task')}`,
  );
  for (const task of held) {
    if (existsSync(task.file)) await parts.intake.enqueue(task.name, task.file);
  }
}

/**
 * Review/ and Done/ are not watched (moves there are a person's): they are swept at once, then on
 * this timer (the injected clock). Its release stops the sweeps.
 */
export function startReviewSweep(parts: ReviewSweepParts): Release {
  const stop = new AbortController();
  const sweepEvery = (firstMs: number): void => {
    parts.clock.sleep(firstMs, stop.signal).then(
      async () => {
        await sweepReviews(parts).catch((error: unknown) =>
          parts.logger.warn({ event: 'task.approve-failed', err: error }, 'could not read Review/ or Done/'),
        );
        sweepEvery(Math.min(parts.config.daemon.rescanIntervalMs, REVIEW_SWEEP_MS));
      },
      () => undefined, // released
    );
  };
  sweepEvery(0);
  return () => stop.abort();
}
