import type { Logger } from '../log/logger.js';
import type { ReconcileAction } from '../vault/reconcile.js';
import type { StatusTracker } from './status-tracker.js';
import type { Job, TaskQueue } from './task-queue.js';

/** What acting on the watcher's decisions touches in the daemon. */
export interface ActionTarget {
  queue: TaskQueue;
  tracker: StatusTracker;
  logger: Logger;
  draining(): boolean;
  enqueue(name: string, file: string): Promise<void>;
  changed(): void;
  /** The vault's STOP file appeared (true) or went (false): runs elsewhere hold too (the queue's workers). */
  holdChanged?(on: boolean): void;
}

/** The queue's job a reconcile action names. */
export interface NamedJob {
  job: Pick<Job, 'id' | 'name' | 'file'>;
}

/** One effect of a reconcile action on the queue and the status, in the order they are carried out. */
export type ActionStep =
  | { kind: 'enqueue'; name: string; file: string }
  | { kind: 'stop-job'; id: string; name: string; reason: 'stop-flag' | 'task-gone' }
  /** A queued job stopped by its flag: no run will report it, so the status says it at once. */
  | { kind: 'mark-stopped'; id: string; name: string; file: string }
  | { kind: 'forget'; id: string }
  | { kind: 'hold'; on: boolean };

/**
 * What one reconciliation action does, from the job it names (undefined when the queue has none:
 * a stop or gone for a task that is not queued, finished or never ran here, changes nothing). A
 * stopped task stays listed (stopped); a gone one is forgotten, its memory kept on disk.
 */
export function actionSteps(action: ReconcileAction, named: NamedJob | undefined): ActionStep[] {
  switch (action.kind) {
    case 'start':
    case 'resume':
      return [{ kind: 'enqueue', name: action.name, file: action.path }];
    case 'stop': {
      if (named === undefined) return [];
      const { id, name, file } = named.job;
      // Listed as stopped at once, running or not: the flag is the person's word, and `status`
      // says so before the agent is gone and the checkpoint written (the run's own 'ended' agrees).
      return [
        { kind: 'stop-job', id, name, reason: 'stop-flag' },
        { kind: 'mark-stopped', id, name, file },
      ];
    }
    case 'gone':
      if (named === undefined) return [];
      return [
        { kind: 'stop-job', id: named.job.id, name: named.job.name, reason: 'task-gone' },
        { kind: 'forget', id: named.job.id },
      ];
    case 'hold':
      return [{ kind: 'hold', on: action.on }];
  }
}

/**
 * Carries out what a reconciliation of Approved/ decided: start or resume a task (queue it), stop
 * it (its flag), give it up (moved or deleted), hold or release everything (the vault's STOP).
 * Nothing more is done once the daemon drains.
 */
export async function applyActions(actions: ReconcileAction[], target: ActionTarget): Promise<void> {
  for (const action of actions) {
    if (target.draining()) return;
    for (const step of actionSteps(action, namedJob(action, target.queue))) await carryOut(step, target);
  }
}

function namedJob(action: ReconcileAction, queue: TaskQueue): NamedJob | undefined {
  if (action.kind !== 'stop' && action.kind !== 'gone') return undefined;
  const job = queue.byName(action.name);
  if (job === undefined) return undefined;
  return { job };
}

async function carryOut(step: ActionStep, target: ActionTarget): Promise<void> {
  const { queue, tracker, logger } = target;
  switch (step.kind) {
    case 'enqueue':
      await target.enqueue(step.name, step.file);
      return;
    case 'stop-job':
      if (step.reason === 'stop-flag')
        logger.info({ event: 'task.stop-flag-seen', taskId: step.id }, `stop flag for ${step.name}: stopping`);
      else
        logger.warn(
          { event: 'task.file-gone', taskId: step.id },
          `${step.name} was moved or deleted: stopping it, its memory is kept`,
        );
      queue.stop(step.id, step.reason);
      return;
    case 'mark-stopped':
      tracker.stopped(step.id, step.name, step.file);
      return;
    case 'forget':
      tracker.forget(step.id);
      return;
    case 'hold':
      tracker.held = step.on;
      target.holdChanged?.(step.on);
      if (step.on) queue.pause();
      else queue.resume();
      logger.info(
        { event: step.on ? 'vault.hold-started' : 'vault.hold-ended' },
        step.on
          ? 'STOP exists: nothing new starts and running tasks hold before their next iteration'
          : 'STOP removed: resuming',
      );
      target.changed();
      return;
  }
}
