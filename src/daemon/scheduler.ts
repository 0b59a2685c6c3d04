import PQueue from 'p-queue';
import type { Job, JobSettled, RunJob, TaskQueue } from './task-queue.js';
import type { StopReason } from '../loop/outcome.js';

interface Entry {
  job: Job;
  controller: AbortController;
  state: 'queued' | 'parked' | 'running';
}

/**
 * Runs jobs with a bounded concurrency (p-queue), first come first served within a priority, never
 * the same task twice at once, and never two tasks in the same workdir at once: a job whose
 * workdir is busy is parked outside the queue, so it does not hold a slot while it waits.
 */
export class Scheduler implements TaskQueue {
  private readonly queue: PQueue;
  private readonly entries = new Map<string, Entry>();
  private readonly busyWorkdirs = new Set<string>();

  constructor(
    concurrency: number,
    private readonly runJob: RunJob,
    private readonly onSettled: JobSettled = () => undefined,
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
    this.busyWorkdirs.clear();
    for (const entry of this.entries.values()) if (entry.state === 'running') this.busyWorkdirs.add(entry.job.workdir);
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
      .sort((a, b) => b.priority - a.priority || a.enqueuedAtMs - b.enqueuedAtMs);
  }

  /** Resolves when nothing is queued, parked or running. */
  async idle(): Promise<void> {
    while (this.entries.size > 0) await this.queue.onIdle();
  }

  /** Into the queue if its workdir is free; otherwise parked until the workdir's job ends. */
  private admit(entry: Entry): void {
    if (this.busyWorkdirs.has(entry.job.workdir)) return;
    this.busyWorkdirs.add(entry.job.workdir);
    entry.state = 'queued';
    void this.queue.add(() => this.execute(entry), { priority: entry.job.priority });
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
      this.busyWorkdirs.delete(entry.job.workdir);
      const next = this.nextParked(entry.job.workdir);
      if (next !== undefined) this.admit(next);
    }
    this.onSettled(entry.job, failure);
  }

  private nextParked(workdir: string): Entry | undefined {
    return [...this.entries.values()]
      .filter((entry) => entry.state === 'parked' && entry.job.workdir === workdir)
      .sort((a, b) => b.job.priority - a.job.priority || a.job.enqueuedAtMs - b.job.enqueuedAtMs)[0];
  }
}
