import { existsSync } from 'node:fs';
import type { Logger } from '../log/logger.js';
import type { Job } from './task-queue.js';

/**
 * The session of each running task, so that a file its author renamed inside Approved/ is known as
 * that task and not started as a new one. The loop follows the file by its session on its own side
 * (`loop/follow-file.ts`); here the job takes the new name, so the watcher forgets the right one.
 */
export class RunningSessions {
  private readonly jobs = new Map<string, Job>();

  /** The loop of `job` started with `session`. */
  track(session: string, job: Job): void {
    this.jobs.set(session, job);
  }

  /** The run of `job` ended. */
  release(job: Job): void {
    for (const [session, owner] of this.jobs) if (owner === job) this.jobs.delete(session);
  }

  /**
   * Whether a new file's job is a running task under a new name: it carries that task's session and
   * the task's own file is gone. If so the running job takes the new name and file.
   */
  followRename(job: Job, logger: Logger): boolean {
    const running = job.session === undefined ? undefined : this.jobs.get(job.session);
    if (running === undefined || running.name === job.name || existsSync(running.file)) return false;
    logger.info(
      { event: 'task.renamed', taskId: running.id, from: running.name, to: job.name },
      `${running.name} was renamed to ${job.name}: its run goes on under the new name`,
    );
    running.name = job.name;
    running.file = job.file;
    return true;
  }
}
