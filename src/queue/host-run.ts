import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ErrorCode } from '../errors.js';
import { WiggumError, isWiggumError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { LOCAL_ENDINGS } from '../loop/endings.js';
import type { TaskRunResult } from '../loop/events.js';
import { stopReasonOf } from '../loop/outcome.js';
import type { RunTaskDeps, RunTaskRequest } from '../loop/request.js';
import { readTaskFile } from '../task/read.js';
import type { Task } from '../task/parse.js';
import type { PersistenceLoopData } from '../task/render.js';
import type { ApplyDeps, HostTarget } from './host-apply.js';
import { workerChanged, writeEnding, writeProgress } from './host-apply.js';
import type { HostPrepared } from './host-prepare.js';
import { jobDataOf, prepareOnHost, writeQueueRecord } from './host-prepare.js';
import { jobIdFor } from './job-data.js';
import type { Wakers } from './wakers.js';
import { SIGNAL_TTL_MS, ackKey, failureKey, stopKey } from './names.js';
import { applyProgress, parseProgress } from './progress.js';
import type { ProgressState, WorkerRef } from './progress.js';
import { parseRunReturn } from './run-ending.js';
import { hostAction } from './stall-policy.js';

/** What the engine needs of the vault host's queue. */
export interface HostQueue {
  queue: Queue;
  /** For the plain keys (stop, ack). */
  redis: Redis;
  maxStalled: number;
  wakers: Wakers;
}

/** How often the host looks at a run's job when no event woke it: its progress, its state, whether it still exists. */
const POLL_MS = 500;

/**
 * The vault host's engine (request.ts TaskEngine): instead of running the loop here, the task's run
 * goes to the queue as one job, and the host follows it until it ends, writing the checkpoint,
 * history and memory from each progress message and, at the end, the ending, as the loop would. The
 * job is read from Redis, never only heard of: a missed event, a host restart or a Redis restart
 * changes nothing; a job Redis lost is added again from the task file.
 */
export async function runOnWorkers(
  host: HostQueue,
  task: Task,
  request: RunTaskRequest,
  deps: RunTaskDeps,
  reject: (error: WiggumError) => Promise<TaskRunResult>,
): Promise<TaskRunResult> {
  let prepared: HostPrepared;
  try {
    prepared = await prepareOnHost(task, request, deps);
  } catch (error) {
    if (!isWiggumError(error)) throw error;
    return reject(error);
  }
  return new HostRun(host, task, prepared, request, deps, reject).follow();
}

class HostRun {
  private readonly jobId: string;
  private readonly log: Logger;
  private target: HostTarget;
  private applied: ProgressState;
  private worker: WorkerRef | null = null;
  /** The newest commit a run pushed that the host wrote (the task's work on the remote). */
  private commit: string | null;
  private stopSent: string | null = null;
  private quietErrors = 0;
  private unreadable = false;
  private readonly applyDeps: ApplyDeps;

  constructor(
    private readonly host: HostQueue,
    private readonly task: Task,
    private readonly prepared: HostPrepared,
    private readonly request: RunTaskRequest,
    private readonly deps: RunTaskDeps,
    private readonly reject: (error: WiggumError) => Promise<TaskRunResult>,
  ) {
    this.jobId = jobIdFor(task.id);
    this.log = deps.logger;
    this.target = { taskId: task.id, file: task.file, lastText: prepared.text };
    this.applied = { generation: prepared.record.generation, seq: prepared.record.seq };
    this.commit = prepared.record.commit;
    this.applyDeps = {
      places: deps.host.places,
      taskFile: deps.host.taskFile,
      logger: deps.logger,
      clock: deps.clock,
      session: prepared.session,
      onEvent: request.onEvent,
    };
  }

  async follow(): Promise<TaskRunResult> {
    let data;
    try {
      data = jobDataOf(this.task, this.prepared);
    } catch (error) {
      if (!isWiggumError(error)) throw error;
      return this.reject(error);
    }
    // A failure's code is the current job's only: none is left from a run before it.
    await this.host.redis.del(stopKey(this.task.id), failureKey(this.jobId));
    await this.host.redis.set(ackKey(this.task.id), String(this.applied.seq), 'PX', SIGNAL_TTL_MS);
    await this.dispatch(data);
    this.request.onEvent?.({
      type: 'started',
      taskId: this.task.id,
      file: this.task.file,
      iteration: this.prepared.checkpoint.iteration,
      maxIterations: this.prepared.checkpoint.max_iterations,
      resumed: this.prepared.checkpoint.iteration > 0,
      durable: true,
      harness: this.prepared.settings.harness.name,
      session: this.prepared.session.sessionId,
    });
    for (;;) {
      await this.passOnStop();
      let job: Job | undefined;
      let state: string;
      try {
        job = await this.host.queue.getJob(this.jobId);
        state = job === undefined ? 'missing' : await job.getState();
        this.quietErrors = 0;
      } catch (error) {
        this.redisFailed(error);
        await this.pause();
        continue;
      }
      if (job === undefined || state === 'unknown' || state === 'missing') {
        if (this.stopSent !== null) return this.stoppedHere();
        await this.lost();
        continue;
      }
      await this.takeProgress(job.progress);
      if (state === 'completed') return this.completed(job);
      if ((state === 'waiting' || state === 'delayed') && this.worker !== null) {
        // Handed back or stalled: no worker holds it until one takes it up again.
        this.worker = null;
        this.request.onEvent?.({ type: 'worker', taskId: this.task.id, worker: null });
      }
      if (state === 'failed') return this.failed(job);
      if (this.stopSent !== null && (state === 'waiting' || state === 'delayed' || state === 'prioritized')) {
        // Not running anywhere: nobody else will say it stopped.
        const removed = await job.remove().then(
          () => true,
          () => false,
        );
        if (removed) return this.stoppedHere();
      }
      await this.pause();
    }
  }

  private async dispatch(data: ReturnType<typeof jobDataOf>): Promise<void> {
    const existing = await this.host.queue.getJob(this.jobId);
    if (existing !== undefined) {
      const state = await existing.getState();
      const stale = state === 'failed' || (state === 'completed' && !this.endsTask(existing.returnvalue));
      if (!stale) {
        this.log.info(
          { event: 'queue.adopted', jobId: this.jobId, state },
          `the run of ${this.task.id} is already in the queue (${state}): following it`,
        );
        return;
      }
      // A run that ended without ending the task (stopped, handed back) or failed: a new one starts.
      await this.takeProgress(existing.progress);
      await existing.remove();
    }
    await this.host.queue.add('run', data, {
      jobId: this.jobId,
      attempts: 1,
      removeOnComplete: false,
      removeOnFail: false,
    });
    this.log.info(
      { event: 'queue.dispatched', jobId: this.jobId, iteration: data.checkpoint?.iteration ?? 0 },
      `queued for a worker: ${this.task.id}`,
    );
  }

  /** Whether a finished job's return value ends the task (done, rejected, blocked): applied, never run again. */
  private endsTask(value: unknown): boolean {
    try {
      const kind = parseRunReturn(value).ending?.kind;
      return kind === 'done' || kind === 'rejected' || kind === 'blocked';
    } catch {
      return false;
    }
  }

  private async passOnStop(): Promise<void> {
    const { signal, kill } = this.request;
    const wanted = kill?.aborted === true ? 'kill' : signal.aborted ? stopReasonOf(signal) : null;
    if (wanted === null || wanted === this.stopSent) return;
    try {
      await this.host.redis.set(stopKey(this.task.id), wanted, 'PX', SIGNAL_TTL_MS);
      this.stopSent = wanted;
    } catch (error) {
      this.redisFailed(error);
    }
  }

  private async takeProgress(value: unknown): Promise<void> {
    if (typeof value !== 'object' || value === null) return;
    let progress;
    try {
      progress = parseProgress(value);
    } catch (error) {
      if (!this.unreadable) this.log.warn({ event: 'queue.progress-unreadable', err: error }, (error as Error).message);
      this.unreadable = true;
      return;
    }
    if (progress.taskId !== this.task.id) return;
    const decision = applyProgress(this.applied, progress);
    if (decision.kind === 'ignore-stale-generation') {
      this.log.info(
        { event: 'queue.progress-stale', generation: progress.generation, newest: this.applied.generation },
        `ignored progress of ${this.task.id} from a run that was taken over (generation ${progress.generation})`,
      );
      return;
    }
    if (workerChanged(this.worker, progress.worker)) {
      this.worker = progress.worker;
      this.request.onEvent?.({ type: 'worker', taskId: this.task.id, worker: progress.worker });
    }
    if (decision.kind === 'ignore-older') {
      if (decision.state.generation !== this.applied.generation) {
        this.applied = decision.state;
        await writeQueueRecord(this.prepared.session, { ...this.applied, commit: progress.commit });
      }
      return;
    }
    if (decision.kind === 'gap')
      this.log.warn(
        { event: 'queue.progress-gap', from: decision.missing.from, to: decision.missing.to },
        `history lines ${decision.missing.from}–${decision.missing.to} of ${this.task.id} were lost before this host saw them; the checkpoint is whole`,
      );
    this.target = await writeProgress(this.currentTarget(), progress, decision, this.applyDeps);
    this.applied = decision.state;
    this.commit = progress.commit ?? this.commit;
    await this.host.redis
      .set(ackKey(this.task.id), String(this.applied.seq), 'PX', SIGNAL_TTL_MS)
      .catch((error: unknown) => this.redisFailed(error));
  }

  private async completed(job: Job): Promise<TaskRunResult> {
    let ending;
    try {
      ending = parseRunReturn(job.returnvalue).ending;
    } catch (error) {
      this.log.warn({ event: 'queue.progress-unreadable', err: error }, (error as Error).message);
      ending = null;
    }
    if (ending === null) {
      await job.remove().catch(() => undefined);
      throw new WiggumError(
        'E_QUEUE_PROTOCOL',
        `the run of ${this.task.id} ended on its worker without saying how: it is offered again`,
      );
    }
    const result = await writeEnding(this.currentTarget(), ending, this.prepared, this.commit, this.applyDeps);
    await this.forget(job);
    return result;
  }

  private async failed(job: Job): Promise<TaskRunResult> {
    const reason = job.failedReason ?? '';
    // The worker's WiggumError code, kept beside the job (worker-process.ts): decided on, never the message.
    const code = errorCodeOf(await this.host.redis.get(failureKey(this.jobId)).catch(() => null));
    const stalled = /stalled more than/i.test(reason);
    const stalls = stalled ? Math.max(job.stalledCounter, this.host.maxStalled + 1) : job.stalledCounter;
    const action = hostAction(
      { kind: 'failed', code, stalls, attemptsLeft: 0 },
      { taskId: this.task.id, maxStalled: this.host.maxStalled, iteration: this.prepared.checkpoint.iteration },
    );
    this.log.warn(
      { event: 'queue.run-failed', reason, stalls, action: action.kind },
      `the run of ${this.task.id} failed on its worker: ${reason}`,
    );
    await this.forget(job);
    if (action.kind === 'reject') return this.reject(new WiggumError(action.code, action.report));
    throw new WiggumError(
      code ?? 'E_INTERNAL',
      `the run of ${this.task.id} failed on its worker (${reason}); it is offered again`,
    );
  }

  /** The run was stopped before any worker ran it (or after its job was lost): ended here, as a loop would. */
  private async stoppedHere(): Promise<TaskRunResult> {
    const reason = stopReasonOf(this.request.signal);
    const read = await readTaskFile(this.target.file).catch(() => null);
    const current = read?.result.ok === true ? read.result.task.frontmatter.persistence_loop : undefined;
    const loop = current === undefined ? this.prepared.checkpoint : (current as PersistenceLoopData);
    await this.host.redis.del(stopKey(this.task.id)).catch(() => undefined);
    return LOCAL_ENDINGS.stopped(this.currentTarget(), loop, reason, loop.iteration, this.applyDeps);
  }

  /** The job is gone from Redis (Redis lost or flushed): added again from the task file and session. */
  private async lost(): Promise<void> {
    this.log.warn(
      { event: 'queue.job-lost', jobId: this.jobId },
      `the queue no longer has the run of ${this.task.id} (Redis lost?): adding it again from the task file`,
    );
    const read = await readTaskFile(this.target.file);
    if (!read.result.ok) throw new WiggumError('E_TASK_SCHEMA', `${this.target.file} no longer reads as a task`);
    const again = { ...read.result.task, id: this.task.id };
    const prepared = await prepareOnHost(again, this.request, this.deps);
    const record = { ...prepared.record, generation: Math.max(prepared.record.generation, this.applied.generation) };
    this.target = { ...this.target, lastText: prepared.text };
    const data = jobDataOf(again, { ...prepared, record });
    try {
      await this.host.redis.set(ackKey(this.task.id), String(this.applied.seq), 'PX', SIGNAL_TTL_MS);
      await this.host.queue.add('run', data, {
        jobId: this.jobId,
        attempts: 1,
        removeOnComplete: false,
        removeOnFail: false,
      });
    } catch (error) {
      this.redisFailed(error);
    }
  }

  private async forget(job: Job): Promise<void> {
    await job.remove().catch(() => undefined);
    await this.host.redis
      .del(stopKey(this.task.id), ackKey(this.task.id), failureKey(this.jobId))
      .catch(() => undefined);
  }

  private currentTarget(): HostTarget {
    return this.target;
  }

  private redisFailed(error: unknown): void {
    this.quietErrors += 1;
    if (this.quietErrors === 1 || this.quietErrors % 40 === 0)
      this.log.warn(
        { event: 'queue.error', err: error },
        `cannot reach the queue's Redis (${error instanceof Error ? error.message : String(error)}): trying again`,
      );
  }

  private async pause(): Promise<void> {
    const stop = new AbortController();
    const event = this.host.wakers.next(this.jobId);
    const stopAsked = this.request.signal.aborted && this.stopSent === null;
    if (!stopAsked) {
      const onAbort = (): void => stop.abort();
      this.request.signal.addEventListener('abort', onAbort, { once: true });
      await Promise.race([this.deps.clock.sleep(POLL_MS, stop.signal).catch(() => undefined), event.woken]);
      this.request.signal.removeEventListener('abort', onAbort);
    }
    stop.abort();
    event.cancel();
  }
}

/** A code a worker kept for its failed job, when it is one (`E_…`); null for none or anything else. */
function errorCodeOf(value: string | null): ErrorCode | null {
  return value !== null && /^E_[A-Z_]+$/.test(value) ? (value as ErrorCode) : null;
}
