import type { LoopEvent, TaskRunResult } from '../loop/events.js';
import type { WaitReason } from '../task/readiness.js';
import type { LinkRefusal } from '../vault/links.js';
import type { NotifierStatus } from '../notify/sender.js';
import type { WorkerHealth } from '../queue/worker-registry.js';

export type Lifecycle = 'starting' | 'running' | 'draining' | 'stopped';

/** One task the daemon knows about, as `wiggum status` and Dashboard.md show it. */
export interface TaskEntry {
  id: string;
  name: string;
  file: string;
  /** What the daemon does with it; `review-slot`: not started while review.max_pending tasks wait in Review/. */
  phase: 'queued' | 'running' | 'waiting' | 'held' | 'review-slot' | 'stopped';
  harness?: string;
  /** The worktree the task works in and its branch (a task in a repository). */
  worktree?: { path: string; branch: string };
  /** Iterations finished, as the task's checkpoint says (src/task/iteration-count.ts): the one count. */
  iteration?: number;
  maxIterations?: number;
  /** The iteration running now (`iteration + 1`); absent between iterations. */
  current?: number;
  attempt?: number;
  step?: string | null;
  /** When the current iteration (or wait) began / ends. */
  sinceMs: number;
  untilMs?: number;
  /** What a waiting task waits for: a retry's backoff, its harness's usage limit to reset, or its harness to answer again. */
  waitingFor?: 'retry' | 'usage-limit' | 'outage' | 'landing';
  /** Why it waits, in words, when the kind alone does not say (a landing that waits for the user's copy). */
  waitingReason?: string;
  /**
   * Its harness does not answer (network, overload): since when this task has waited on it. Kept
   * while the task probes the harness, until a run gets an answer: the task is waiting on an
   * outage, not failing.
   */
  outage?: { harness: string; sinceMs: number };
  taskStartedMs?: number;
  lastOutcome?: string;
  durable?: boolean;
  /** Another process runs it: a foreground `wiggum run` (or `ralph`) holding its task lock. */
  foreground?: { pid: number };
  /** The daemon's last attempt to run it failed before the loop could (the disk full, …): why, and when it tries again. */
  failure?: { message: string; retryAtMs: number };
  /** The `wiggum worker` that runs it (scale-out): absent when it runs here, or no worker holds it. */
  worker?: TaskWorker;
}

/** A `wiggum worker` as a task names it: its id (the key of `DaemonStatus.workers`) and where it is. */
export interface TaskWorker {
  id: string;
  host: string;
  pid: number;
}

/** One `wiggum worker` as the vault host last read it from Redis (src/queue/worker-registry.ts). */
export interface WorkerStatus {
  id: string;
  host: string;
  pid: number;
  health: WorkerHealth;
  concurrency: number;
  /** The ids of the tasks it runs. */
  running: string[];
  /** When it last published, by its own clock. */
  seenAtMs: number;
  startedAtMs: number;
  /** The harnesses it runs; null: every harness its config names. */
  harnesses: string[] | null;
}

/**
 * A file in Approved/ that does not run until its author fixes it (empty, names no harness, a link),
 * or that the order of work holds (`reason` an object: src/task/order.ts `OrderWait`).
 */
export interface AuthorWait {
  name: string;
  file: string;
  /** `being-written`: its author is writing it in place; `unparsable`: it does not parse (yet). */
  reason: WaitReason | LinkRefusal | 'being-written' | 'unparsable';
  /** What is wrong and how to fix it, for status and the Dashboard. */
  message: string;
}

export interface FinishedEntry {
  id: string | null;
  status: TaskRunResult['status'];
  file: string;
  iterations: number;
  reason?: string;
  atMs: number;
}

/** The daemon's live picture, written to `.wiggum/status.json` for `wiggum status`. */
export interface DaemonStatus {
  version: 1;
  pid: number;
  vault: string;
  startedAtMs: number;
  updatedAtMs: number;
  lifecycle: Lifecycle;
  /** The vault's STOP file exists: nothing new starts, running tasks hold. */
  held: boolean;
  concurrency: number;
  tasks: TaskEntry[];
  /** Files that wait for their author (absent in a status file of an older wiggum). */
  waitingForAuthor?: AuthorWait[];
  recent: FinishedEntry[];
  /** The notifiers (`notify:`) and how their deliveries go (absent: none configured, or an older wiggum). */
  notifiers?: NotifierStatus[];
  /** The `wiggum worker` processes, by id (absent: the daemon does not run tasks through a queue, or an older wiggum). */
  workers?: Record<string, WorkerStatus>;
}

/** How many finished tasks the status (and Dashboard.md) lists. */
export const RECENT = 20;

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
        if (entry && event.worker !== null) {
          entry.worker = { id: event.worker.id, host: event.worker.host, pid: event.worker.pid };
          // Taken up by a worker: it runs, though its loop has not said `started` yet.
          if (entry.phase === 'queued') Object.assign(entry, { phase: 'running', sinceMs: this.now() });
          delete entry.failure;
        } else if (entry) {
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
        break;
      case 'ended': {
        const { result } = event;
        if (result.status === 'stopped' && entry) {
          entry.phase = 'stopped';
          entry.sinceMs = this.now();
          delete entry.worker;
        } else if (event.taskId !== null) {
          this.tasks.delete(event.taskId);
        } else {
          // A file rejected before it parsed has no id: its entry goes by its file's name.
          const name = result.file.slice(result.file.lastIndexOf('/') + 1);
          for (const [id, task] of this.tasks) if (task.name === name) this.tasks.delete(id);
        }
        // A complete task waiting in Review/ has not finished: it is listed from Review/, never as done.
        if ((result.status === 'done' && result.review !== true) || result.status === 'rejected') {
          this.recent.unshift({
            id: result.taskId,
            status: result.status,
            file: result.file,
            iterations: result.iterations,
            ...(result.reason === undefined ? {} : { reason: result.reason }),
            atMs: this.now(),
          });
          this.recent.length = Math.min(this.recent.length, RECENT);
        }
        break;
      }
    }
    this.onChange();
  }

  snapshot(): DaemonStatus {
    const order: Record<TaskEntry['phase'], number> = {
      running: 0,
      waiting: 1,
      held: 2,
      queued: 3,
      'review-slot': 4,
      stopped: 5,
    };
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
