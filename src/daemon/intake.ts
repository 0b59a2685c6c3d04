import { jobFor } from './job.js';
import { reviewHoldText, reviewHolds } from './review-desk.js';
import type { Job } from './task-queue.js';
import type { DaemonParts } from './parts.js';

/** What taking a file into the queue reads and tells. */
export type IntakeParts = Pick<
  DaemonParts,
  'config' | 'layout' | 'clock' | 'logger' | 'events' | 'queue' | 'tracker' | 'reviews' | 'sessions'
>;

/**
 * A file of Approved/ taken into the queue: as the job of a running task its author renamed (the
 * run goes on under the new name), held while `review.max_pending` tasks wait in Review/, or queued;
 * a file whose id is already queued or running under another name waits until that one settles.
 */
export class TaskIntake {
  /** Files whose id is already running under another file name: started when that one ends. */
  private readonly blockedById = new Map<string, Job[]>();

  constructor(private readonly parts: IntakeParts) {}

  async enqueue(name: string, file: string): Promise<void> {
    const { layout, clock, logger, queue, tracker, reviews } = this.parts;
    const job = await jobFor(name, file, this.parts.config, layout, clock.now());
    if (this.parts.sessions.followRename(job, logger)) return;
    const maxPending = this.parts.config.review.maxPending;
    if (maxPending !== null && reviewHolds(reviews.pendingCount, maxPending)) {
      reviews.hold({ name, file });
      const reason = reviewHoldText(reviews.pendingCount, maxPending);
      tracker.heldForReview(job.id, name, file, reason);
      logger.info({ event: 'review.holding', taskId: job.id, file }, `${name} ${reason}`);
      return;
    }
    if (queue.add(job)) {
      tracker.queued(job.id, job.name, job.file);
      logger.info({ event: 'task.queued', taskId: job.id, file }, `queued ${name}`);
      this.parts.events.emit('queued', { taskId: job.id, name, file });
    } else {
      logger.warn(
        { event: 'task.waits-for-same-id', taskId: job.id, file },
        `another file with the id ${job.id} is already queued or running; ${name} waits for it`,
      );
      this.blockedById.set(job.id, [...(this.blockedById.get(job.id) ?? []), job]);
    }
  }

  /** The first file that waited for `id` to be free, handed out once (its run under that id has settled). */
  nextWaitingFor(id: string): Job | undefined {
    const blocked = this.blockedById.get(id);
    const next = blocked?.shift();
    if (blocked !== undefined && blocked.length === 0) this.blockedById.delete(id);
    return next;
  }
}
