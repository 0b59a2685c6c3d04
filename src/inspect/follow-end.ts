import type { LoopStatus } from '../task/vocabulary.js';

/**
 * Whether `logs --follow` is done: the task's file left Approved/ (null: it is no longer there)
 * or its checkpoint says its run ended. Queued, running and interrupted tasks go on (an
 * interrupted one resumes when the daemon starts again).
 */
export function followEnded(status: LoopStatus | null): boolean {
  return status === null || status === 'done' || status === 'rejected' || status === 'stopped';
}
