import type { TaskRunResult } from '../loop/events.js';
import { runTask } from '../loop/run-task.js';
import type { DaemonParts } from './parts.js';
import type { Job } from './task-queue.js';

/** What one task's run takes from the daemon, and who hears of its loop's events. */
export type JobRunParts = Pick<
  DaemonParts,
  | 'config'
  | 'runHost'
  | 'clock'
  | 'random'
  | 'logger'
  | 'env'
  | 'engine'
  | 'killAgents'
  | 'sessions'
  | 'tracker'
  | 'notifications'
  | 'events'
>;

/**
 * Runs one job's task through the loop (`runTask`), on this machine or a worker; `signal` stops it
 * with a `StopReason`. Each loop event is told to the session map (to follow a rename), the status,
 * the notifiers and the daemon's `loop` event, in that order.
 */
export function runJob(job: Job, signal: AbortSignal, parts: JobRunParts): Promise<TaskRunResult> {
  return runTask(
    {
      file: job.file,
      stream: null,
      signal,
      kill: parts.killAgents.signal,
      onEvent: (event) => {
        if (event.type === 'started') parts.sessions.track(event.session, job);
        parts.tracker.event(event);
        parts.notifications.loopEvent(event, job.name, job.file);
        parts.events.emit('loop', event);
      },
    },
    {
      config: parts.config,
      host: parts.runHost,
      clock: parts.clock,
      random: parts.random,
      logger: parts.logger,
      env: parts.env,
      ...(parts.engine === undefined ? {} : { engine: parts.engine }),
    },
  );
}
