import type { Logger } from '../log/logger.js';
import type { ReconcileAction } from '../vault/reconcile.js';
import type { StatusTracker } from './status.js';
import type { TaskQueue } from './task-queue.js';

/** What acting on the watcher's decisions touches in the daemon. */
export interface ActionTarget {
  queue: TaskQueue;
  tracker: StatusTracker;
  logger: Logger;
  draining(): boolean;
  enqueue(name: string, file: string): Promise<void>;
  changed(): void;
}

/**
 * Carries out what a reconciliation of Approved/ decided: start or resume a task (queue it), stop
 * it (its flag), give it up (moved or deleted), hold or release everything (the vault's STOP).
 */
export async function applyActions(actions: ReconcileAction[], target: ActionTarget): Promise<void> {
  const { queue, tracker, logger } = target;
  for (const action of actions) {
    if (target.draining()) return;
    switch (action.kind) {
      case 'start':
      case 'resume':
        await target.enqueue(action.name, action.path);
        break;
      case 'stop': {
        const job = queue.byName(action.name);
        if (job !== undefined) {
          logger.info({ event: 'task.stop-flag-seen', taskId: job.id }, `stop flag for ${action.name}: stopping`);
          const wasRunning = queue.running().some((running) => running.id === job.id);
          queue.stop(job.id, 'stop-flag');
          if (!wasRunning) tracker.stopped(job.id, job.name, job.file);
        }
        break;
      }
      case 'gone': {
        const job = queue.byName(action.name);
        if (job !== undefined) {
          logger.warn(
            { event: 'task.file-gone', taskId: job.id },
            `${action.name} was moved or deleted: stopping it, its memory is kept`,
          );
          queue.stop(job.id, 'task-gone');
          tracker.forget(job.id);
        }
        break;
      }
      case 'hold':
        tracker.held = action.on;
        if (action.on) queue.pause();
        else queue.resume();
        logger.info(
          { event: action.on ? 'vault.hold-started' : 'vault.hold-ended' },
          action.on
            ? 'STOP exists: nothing new starts and running tasks hold before their next iteration'
            : 'STOP removed: resuming',
        );
        target.changed();
        break;
    }
  }
}
