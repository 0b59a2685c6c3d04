import PQueue from 'p-queue';
import { mayStart } from './admission.js';
import type { Job, JobSettled, RunJob, TaskQueue } from './task-queue.js';
import type { StopReason } from '../loop/outcome.js';

interface Entry {
  job: Job;
  controller: AbortController;
  state: 'queued' | 'parked' | 'running';
}

/**
 * Runs jobs with a bounded concurrency (p-queue), lowest priority number first, first come first
 * served within a priority, never
 * the same task twice at once, and never two jobs with the same key at once (one branch of a
 * repository, or one workdir outside a repository: admission.ts), nor more than `maxPerRepo` on one
 * repository: a job that may not start yet is parked outside the queue, so it holds no slot while
 * it waits.
 */
export class Scheduler implements TaskQueue {
  private readonly queue: PQueue;
  private readonly entries = new Map<string, Entry>();
  constructor(
    concurrency: number,
    private readonly runJob: RunJob,
    private readonly onSettled: JobSettled = () => undefined,
    private readonly options: { maxPerRepo: number | null } = { maxPerRepo: null },
  ) {
    this.queue = new PQueue({ concurrency });
  }

  /** Adds a job unless its task is already queued or running; returns whether it was added. */
  add(job: Job): boolean {
    if (this.entries.has(job.id)) return false;
    const entry: Entry = { job, controller: new AbortController(), state: 'parked' };
    this.entries.set(job.id, entry);
    this.admit(entry);
    return true;
  }

  /** Stops a task: a queued one is dropped, a running one is aborted with `reason`. */
  stop(id: string, reason: StopReason): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    entry.controller.abort(reason);
    if (entry.state !== 'running') this.entries.delete(id);
    return true;
  }

  /** Stops every task (drain): queued ones are dropped, running ones aborted with `reason`. */
  stopAll(reason: StopReason): void {
    for (const id of [...this.entries.keys()]) this.stop(id, reason);
    // The dropped jobs leave p-queue too: a paused queue (a drain, a vault on STOP) that still holds
    // them would never be idle, and the drain would wait out its whole grace for nothing.
    this.queue.clear();
  }

  /** While paused nothing new starts; running jobs go on. */
  pause(): void {
    this.queue.pause();
  }

  resume(): void {
    this.queue.start();
  }

  get concurrency(): number {
    return this.queue.concurrency;
  }

  set concurrency(value: number) {
    this.queue.concurrency = value;
  }

  byName(name: string): Job | undefined {
    for (const entry of this.entries.values()) if (entry.job.name === name) return entry.job;
    return undefined;
  }

  running(): Job[] {
    return [...this.entries.values()].filter((entry) => entry.state === 'running').map((entry) => entry.job);
  }

  waiting(): Job[] {
    return [...this.entries.values()]
      .filter((entry) => entry.state !== 'running')
      .map((entry) => entry.job)
      .sort((a, b) => a.priority - b.priority || a.enqueuedAtMs - b.enqueuedAtMs);
  }

  /** Resolves when nothing is queued, parked or running. */
  async idle(): Promise<void> {
    while (this.entries.size > 0) await this.queue.onIdle();
  }

  /** Into the queue if it may start beside the jobs queued and running; otherwise it stays parked. */
  private admit(entry: Entry): void {
    const holding = [...this.entries.values()].filter((other) => other.state !== 'parked').map((other) => other.job);
    if (!mayStart(entry.job, holding, this.options.maxPerRepo)) return;
    entry.state = 'queued';
    // p-queue runs its highest priority first; a task's lower number runs first (docs/decisions.md).
    void this.queue.add(() => this.execute(entry), { priority: -entry.job.priority });
  }

  private async execute(entry: Entry): Promise<void> {
    let failure: unknown = null;
    try {
      if (!entry.controller.signal.aborted) {
        entry.state = 'running';
        await this.runJob(entry.job, entry.controller.signal);
      }
    } catch (error) {
      failure = error;
    } finally {
      if (this.entries.get(entry.job.id) === entry) this.entries.delete(entry.job.id);
      // Its claim went with its entry: whoever waited on its key or its repository may start.
      for (const next of this.parkedInOrder()) this.admit(next);
    }
    this.onSettled(entry.job, failure);
  }

  private parkedInOrder(): Entry[] {
    return [...this.entries.values()]
      .filter((entry) => entry.state === 'parked')
      .sort((a, b) => a.job.priority - b.job.priority || a.job.enqueuedAtMs - b.job.enqueuedAtMs);
  }
}
