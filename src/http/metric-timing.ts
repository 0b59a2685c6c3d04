import type { IterationRecord } from '../memory/history.js';

/**
 * Pickup latency: from the daemon queueing a task (its `queued` event, once it has read the file
 * that appeared in Approved/) to its loop's `started` event. One entry per queued task, dropped
 * when it starts or settles, so the memory held is the queue's length.
 */
export class PickupTimes {
  private readonly queuedAtMs = new Map<string, number>();

  /** The first queueing counts: a task queued again before it started has waited since the first. */
  queued(taskId: string, nowMs: number): void {
    if (!this.queuedAtMs.has(taskId)) this.queuedAtMs.set(taskId, nowMs);
  }

  /** Seconds since the task was queued, or null when this daemon did not see it queued. */
  started(taskId: string, nowMs: number): number | null {
    const at = this.queuedAtMs.get(taskId);
    if (at === undefined) return null;
    this.queuedAtMs.delete(taskId);
    return Math.max(0, nowMs - at) / 1000;
  }

  /** The task's run is over (it may have ended before it started: an unreadable file). */
  forget(taskId: string): void {
    this.queuedAtMs.delete(taskId);
  }

  get size(): number {
    return this.queuedAtMs.size;
  }
}

/**
 * Loop overhead per agent run: the time from the loop announcing an iteration (its `iteration`
 * event) to the run's record (`iteration-end`), less the agent process's own run time
 * (`durationMs`): building the prompt, the memory files, git before and after, the verify check of
 * a claim, the history line. Only runs whose start this daemon saw are measured: a run on a
 * `wiggum worker` reaches the vault host as its record alone.
 */
export class OverheadTimes {
  private readonly begun = new Map<string, { iteration: number; attempt: number; atMs: number }>();

  iteration(taskId: string, iteration: number, attempt: number, startedAtMs: number): void {
    this.begun.set(taskId, { iteration, attempt, atMs: startedAtMs });
  }

  /** Seconds the loop spent around the run, or null when its start was not seen here. */
  ended(
    taskId: string,
    record: Pick<IterationRecord, 'iteration' | 'attempt' | 'durationMs'>,
    nowMs: number,
  ): number | null {
    const begun = this.begun.get(taskId);
    if (begun === undefined || begun.iteration !== record.iteration || begun.attempt !== record.attempt) return null;
    this.begun.delete(taskId);
    return Math.max(0, nowMs - begun.atMs - record.durationMs) / 1000;
  }

  forget(taskId: string): void {
    this.begun.delete(taskId);
  }

  get size(): number {
    return this.begun.size;
  }
}
