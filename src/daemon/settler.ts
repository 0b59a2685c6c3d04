import { existsSync } from 'node:fs';
import type { TaskRunResult } from '../loop/events.js';
import type { TaskIntake } from './intake.js';
import type { DaemonParts } from './parts.js';
import { endedPolicy, settlePolicy } from './settle-policy.js';
import type { SaidOnce, SettleAction } from './settle-policy.js';
import type { Job } from './task-queue.js';

/** What follows a run touches in the daemon. */
export type SettlerParts = Pick<
  DaemonParts,
  | 'config'
  | 'clock'
  | 'logger'
  | 'events'
  | 'tracker'
  | 'watcher'
  | 'sessions'
  | 'reviews'
  | 'notifications'
  | 'figures'
  | 'draining'
  | 'changed'
  | 'idle'
> & { readonly intake: TaskIntake };

/**
 * What follows each run in the daemon: `settlePolicy` and `endedPolicy` (settle-policy.ts, pure)
 * decide, `applySettle` carries their actions out; then the next file waiting for the same id
 * starts, the vault is scanned again and the status rewritten. A retry later sleeps on the
 * injected clock until the release (a drain) cancels it.
 */
export class Settler {
  /** Per task file, what the log said once about it (running in another process, unreadable) until it runs here. */
  private readonly said = new Map<string, Set<SaidOnce>>();
  /** Aborted by the release: every retry later still waiting is cancelled. */
  private readonly stop = new AbortController();

  constructor(private readonly parts: SettlerParts) {}

  /** The loop returned a result: its task ended, stopped or was handed back. */
  ended(job: Job, result: TaskRunResult): void {
    if (result.review === true) this.parts.reviews.noteReview(result.file);
    // A task stopped by its flag: the tracker already shows it stopped, the loop's 'ended' event said so.
    for (const action of endedPolicy(result)) this.applySettle(job, action);
    this.parts.notifications.ended(result, job.name);
    this.parts.figures.refresh([result.file]);
    this.parts.events.emit('settled', { taskId: job.id, name: job.name, result, error: null });
  }

  /** Every run ends here (after `ended`, or with the error that ended it). */
  settled(job: Job, error: unknown): void {
    const { parts } = this;
    // Its session is free.
    parts.sessions.release(job);
    const actions = settlePolicy({
      name: job.name,
      error,
      fileExists: existsSync(job.file),
      said: this.said.get(job.name) ?? new Set(),
      failedRetryMs: parts.config.daemon.failedRetryMs,
      nowMs: parts.clock.now(),
    });
    for (const action of actions) this.applySettle(job, action);
    if (error !== null) parts.events.emit('settled', { taskId: job.id, name: job.name, result: null, error });
    const next = parts.intake.nextWaitingFor(job.id);
    if (next !== undefined && !parts.draining) void parts.intake.enqueue(next.name, next.file);
    // Its file has just landed in Done/ or Rejected/: the tasks whose depends_on names it are
    // decided again now, not at the next periodic rescan.
    if (!parts.draining) void parts.watcher.rescan();
    parts.changed();
    parts.idle?.soon();
  }

  release(): void {
    this.stop.abort();
  }

  private applySettle(job: Job, action: SettleAction): void {
    const { tracker, watcher } = this.parts;
    switch (action.kind) {
      case 'forget':
        return tracker.forget(job.id);
      case 'mark-finished':
        return watcher.markFinished(job.name);
      case 'mark-stopped':
        return watcher.markStopped(job.name);
      case 'rescan':
        void watcher.rescan();
        return;
      case 'retry-later':
        return this.retryLater(job, action.delayMs);
      case 'list-running-elsewhere':
        return tracker.runningElsewhere(job.id, job.name, job.file, action.pid);
      case 'list-failing':
        return tracker.failed(job.id, job.name, job.file, action.reason, action.retryAtMs);
      case 'log':
        return this.parts.logger[action.level](
          { event: action.event, taskId: job.id, ...action.fields },
          action.message,
        );
      case 'note-said':
        this.said.set(job.name, (this.said.get(job.name) ?? new Set<SaidOnce>()).add(action.what));
        return;
      case 'clear-said':
        this.said.delete(job.name);
        return;
    }
  }

  /**
   * Lets the watcher offer the task again after `delayMs` (on the injected clock, cancelled by the
   * release); a task whose file has gone meanwhile is no longer listed.
   */
  private retryLater(job: Job, delayMs: number): void {
    const { clock, tracker, watcher } = this.parts;
    clock.sleep(delayMs, this.stop.signal).then(
      () => {
        if (!existsSync(job.file)) tracker.forget(job.id);
        watcher.markFinished(job.name);
        void watcher.rescan();
      },
      () => undefined, // released (a drain): nothing is offered again
    );
  }
}
