import type { SandboxStatus } from '../sandbox/decision.js';
import type { LoopEvent, TaskRunResult } from '../loop/events.js';
import type { NotifierStatus } from '../notify/sender.js';
import { RECENT } from './status.js';
import type { AuthorWait, DaemonStatus, FinishedEntry, Lifecycle, TaskEntry, WorkerStatus } from './status.js';

const PHASE_ORDER: Record<TaskEntry['phase'], number> = {
  running: 0,
  waiting: 1,
  held: 2,
  queued: 3,
  'review-slot': 4,
  stopped: 5,
};

/**
 * Folds the loop's events and the scheduler's changes into a DaemonStatus. It holds only tasks
 * that are queued, running or stopped, plus the last few that finished, so its size does not grow
 * with the vault.
 */
export class StatusTracker {
  private readonly tasks = new Map<string, TaskEntry>();
  private readonly recent: FinishedEntry[] = [];
  lifecycle: Lifecycle = 'starting';
  held = false;
  /** How the vault's agents run, said once the daemon has looked (sandbox-announce.ts). */
  sandbox: SandboxStatus | null = null;
  private authorWaits: AuthorWait[] = [];
  /** Where the notifiers' state is read from at each snapshot (the daemon's NotifySender). */
  notifierSource: (() => NotifierStatus[]) | null = null;
  /** null: not in queue mode, and status.json has no `workers`. */
  private workers: WorkerStatus[] | null = null;

  constructor(
    private readonly base: { pid: number; vault: string; startedAtMs: number; concurrency: number },
    private readonly now: () => number,
    private readonly onChange: () => void,
  ) {}

  set concurrency(value: number) {
    this.base.concurrency = value;
    this.onChange();
  }

  queued(id: string, name: string, file: string): void {
    // A failure or a foreground run seen before stays said until the task runs here.
    const before = this.tasks.get(id);
    const kept = {
      ...(before?.failure === undefined ? {} : { failure: before.failure }),
      ...(before?.foreground === undefined ? {} : { foreground: before.foreground }),
    };
    this.tasks.set(id, {
      id,
      name,
      file,
      phase: before?.foreground === undefined ? 'queued' : 'running',
      sinceMs: this.now(),
      ...kept,
    });
    this.onChange();
  }

  /** Another process (a foreground `wiggum run`) holds the task's lock: listed as running there. */
  runningElsewhere(id: string, name: string, file: string, pid: number): void {
    this.tasks.set(id, {
      id,
      name,
      file,
      phase: 'running',
      sinceMs: this.tasks.get(id)?.sinceMs ?? this.now(),
      foreground: { pid },
    });
    this.onChange();
  }

  /** The daemon could not run the task (it tries again at `retryAtMs`): listed with why. */
  failed(id: string, name: string, file: string, message: string, retryAtMs: number): void {
    this.tasks.set(id, { id, name, file, phase: 'queued', sinceMs: this.now(), failure: { message, retryAtMs } });
    this.onChange();
  }

  /** Not started while `review.max_pending` tasks wait in Review/: listed as held, with why. */
  heldForReview(id: string, name: string, file: string, reason: string): void {
    this.tasks.set(id, { id, name, file, phase: 'review-slot', sinceMs: this.now(), waitingReason: reason });
    this.onChange();
  }

  stopped(id: string, name: string, file: string): void {
    const { worker: _noLongerOnAWorker, ...before } = this.tasks.get(id) ?? { id, name, file };
    this.tasks.set(id, { ...before, phase: 'stopped', sinceMs: this.now() });
    this.onChange();
  }

  /**
   * The workers as the host last read them (src/daemon/worker-status.ts turns the registry's entries
   * into these); null: the daemon runs its tasks itself, not through a queue.
   */
  setWorkers(workers: WorkerStatus[] | null): void {
    this.workers = workers === null ? null : workers.map(copyWorker);
    this.onChange();
  }

  /** The files in Approved/ that wait for their author, as the latest reconciliation saw them. */
  set waitingForAuthor(waits: AuthorWait[]) {
    const same =
      waits.length === this.authorWaits.length &&
      waits.every(
        (wait, i) =>
          wait.name === this.authorWaits[i]?.name &&
          wait.message === this.authorWaits[i]?.message &&
          // An order wait is an object made anew at each reconciliation: compared by what it says.
          JSON.stringify(wait.reason) === JSON.stringify(this.authorWaits[i]?.reason),
      );
    this.authorWaits = waits;
    if (!same) this.onChange();
  }

  /** The tasks an earlier daemon saw finish (newest first), listed below any that finish now. */
  restoreRecent(entries: readonly FinishedEntry[]): void {
    this.recent.push(...entries.slice(0, RECENT - this.recent.length));
    this.onChange();
  }

  forget(id: string): void {
    if (this.tasks.delete(id)) this.onChange();
  }

  event(event: LoopEvent): void {
    const entry = event.taskId === null ? undefined : this.tasks.get(event.taskId);
    switch (event.type) {
      case 'started':
        if (entry) {
          Object.assign(entry, {
            phase: 'running',
            harness: event.harness,
            iteration: event.iteration,
            maxIterations: event.maxIterations,
            durable: event.durable,
            taskStartedMs: this.now(),
            file: event.file,
          });
          if (event.worktree === undefined) delete entry.worktree;
          else entry.worktree = event.worktree;
          delete entry.foreground;
        }
        break;
      case 'iteration':
        // `iteration` stays the checkpoint's count; the one running is said apart.
        if (entry)
          Object.assign(entry, {
            phase: 'running',
            current: event.iteration,
            maxIterations: event.maxIterations,
            attempt: event.attempt,
            step: event.step,
            sinceMs: event.startedAtMs,
            untilMs: undefined,
            waitingReason: undefined,
          });
        break;
      case 'iteration-end':
        if (entry) Object.assign(entry, { lastOutcome: event.record.outcome, current: undefined });
        if (entry && event.record.outcome !== 'transient') delete entry.outage;
        break;
      case 'checkpoint':
        if (entry) Object.assign(entry, { iteration: event.iteration, maxIterations: event.maxIterations });
        break;
      case 'waiting':
        if (entry)
          Object.assign(entry, {
            phase: event.why === 'hold' ? 'held' : 'waiting',
            sinceMs: this.now(),
            untilMs: Number.isFinite(event.untilMs) ? event.untilMs : undefined,
            waitingFor: event.why === 'hold' ? undefined : event.why,
            waitingReason: event.reason,
          });
        if (entry && event.why === 'outage')
          entry.outage = {
            harness: event.harness ?? entry.harness ?? '?',
            sinceMs: entry.outage?.sinceMs ?? this.now(),
          };
        break;
      case 'worker':
        if (entry) this.workerChanged(entry, event.worker);
        break;
      case 'ended':
        this.ended(event.taskId, event.result, entry);
        break;
    }
    this.onChange();
  }

  /** Which worker runs the task now (null: queued again, handed back or stalled). */
  private workerChanged(entry: TaskEntry, worker: { id: string; host: string; pid: number } | null): void {
    if (worker !== null) {
      entry.worker = { id: worker.id, host: worker.host, pid: worker.pid };
      // Taken up by a worker: it runs, though its loop has not said `started` yet.
      if (entry.phase === 'queued') Object.assign(entry, { phase: 'running', sinceMs: this.now() });
      delete entry.failure;
      return;
    }
    // Handed back or stalled: queued again until a worker takes it up; the checkpoint count stays.
    delete entry.worker;
    if (entry.phase !== 'stopped')
      Object.assign(entry, {
        phase: 'queued',
        sinceMs: this.now(),
        current: undefined,
        untilMs: undefined,
        waitingFor: undefined,
        waitingReason: undefined,
      });
  }

  private ended(taskId: string | null, result: TaskRunResult, entry: TaskEntry | undefined): void {
    if (result.status === 'stopped' && entry) {
      entry.phase = 'stopped';
      entry.sinceMs = this.now();
      delete entry.worker;
    } else if (taskId !== null) {
      this.tasks.delete(taskId);
    } else {
      // A file rejected before it parsed has no id: its entry goes by its file's name.
      const name = result.file.slice(result.file.lastIndexOf('/') + 1);
      for (const [id, task] of this.tasks) if (task.name === name) this.tasks.delete(id);
    }
    // A complete task waiting in Review/ has not finished: it is listed from Review/, never as done.
    if ((result.status !== 'done' || result.review === true) && result.status !== 'rejected') return;
    const { taskId: id, status, file, iterations, reason } = result;
    this.recent.unshift({
      id,
      status,
      file,
      iterations,
      ...(reason === undefined ? {} : { reason }),
      atMs: this.now(),
    });
    this.recent.length = Math.min(this.recent.length, RECENT);
  }

  snapshot(): DaemonStatus {
    const order = PHASE_ORDER;
    return {
      version: 1,
      ...this.base,
      updatedAtMs: this.now(),
      lifecycle: this.lifecycle,
      held: this.held,
      tasks: [...this.tasks.values()]
        .sort((a, b) => order[a.phase] - order[b.phase] || a.sinceMs - b.sinceMs)
        .map((task) => ({ ...task })),
      waitingForAuthor: this.authorWaits.map((wait) => ({ ...wait })),
      recent: [...this.recent],
      ...(this.notifierSource === null ? {} : { notifiers: this.notifierSource() }),
      ...(this.sandbox === null ? {} : { sandbox: { ...this.sandbox } }),
      ...(this.workers === null
        ? {}
        : { workers: Object.fromEntries(this.workers.map((worker) => [worker.id, copyWorker(worker)])) }),
    };
  }
}

/** A worker's status that shares no array with the one given: the caller's later changes stay its own. */
function copyWorker(worker: WorkerStatus): WorkerStatus {
  return {
    ...worker,
    running: [...worker.running],
    harnesses: worker.harnesses === null ? null : [...worker.harnesses],
  };
}
