import { join } from 'node:path';
import type { Job } from 'bullmq';
import { DelayedError, WaitingError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WiggumConfig } from '../config/config.js';
import { WiggumError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { PauseBoard, RunHost } from '../loop/run-host.js';
import type { FinishedIteration } from '../loop/run-host.js';
import { runTask } from '../loop/run-task.js';
import type { PersistenceLoopData } from '../task/render.js';
import type { Clock } from '../time/clock.js';
import { isoSeconds } from '../time/clock.js';
import { FENCE_REASON_TEXT, fenceDecision } from './fencing.js';
import type { FenceReason } from './fencing.js';
import { PROTOCOL_VERSION, parseJobData } from './job-data.js';
import { missingDefinition, runConfigOf } from './own-harness.js';
import type { ParsedJobData } from './job-data.js';
import { checkMemorySize } from './memory-files.js';
import { HOLD_KEY, accountPauseKey, ackKey, jobKey, jobLockKey, stopKey } from './names.js';
import { generationOf, parseProgress, pendingRecords } from './progress.js';
import type { ParsedProgress, Progress, SequencedRecord, WorkerRef } from './progress.js';
import { recordingEndings } from './run-ending.js';
import type { RunReturn, WorkerEnding } from './run-ending.js';
import { buildShadowVault } from './shadow-vault.js';
import { logTail, readShadowMemory, values } from './worker-reads.js';
import { openWorkerClone, pushIteration } from './worker-git.js';
import type { WorkerClone } from './worker-git.js';
import type { LoopEvent } from '../loop/events.js';
import type { VaultLayout } from '../vault/layout.js';
import { vaultRunHost } from '../vault/run-host.js';

/** What every run on one worker shares. */
export interface WorkerRunContext {
  config: WiggumConfig;
  /** The worker's own folder (`<cwd>/.wiggum/worker`): its clones and private task copies. */
  root: string;
  /** A connection for plain keys (stop, hold, ack, account pauses), apart from BullMQ's blocking one. */
  redis: Redis;
  worker: WorkerRef;
  /** Harnesses this worker runs (`--harnesses`); null: any of its config. */
  harnesses: readonly string[] | null;
  /** The jobs whose harness or check this worker's config lacks, said once each. */
  missing: Set<string>;
  clock: Clock;
  random: () => number;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** The worker's pause board, keyed by account, fed from Redis (every worker's account pauses). */
  pauses: PauseBoard;
  /** Aborted by SIGTERM: every run stops its agent and hands its job back. */
  handBack: AbortSignal;
  /** The task ids running now, for the worker's heartbeat. */
  running: Set<string>;
}

/** How often a run looks at its stop key, the vault's hold, its lock and its account's pause. */
const WATCH_MS = 500;
/** A job for a harness this worker does not run goes back to the queue for this long. */
const NOT_MINE_DELAY_MS = 1_000;
/** A usage-limit wait at least this long is waited in the queue (the job delayed), not in a worker's slot. */
const QUEUE_WAIT_MIN_MS = 5_000;
/** How long a run waits for the vault host to write an iteration before it goes on regardless. */
const ACK_WAIT_MS = 3_000;
const ACK_POLL_MS = 25;
/** How often a read of Redis that answered with an error is made before the iteration gives up. */
const READ_ATTEMPTS = 20;

/**
 * One task run on this worker: its code cloned, a private copy of the task and its memory built,
 * the loop run on that copy exactly as on one machine; after each iteration the branch is pushed
 * with a lease and the iteration sent to the vault host as job progress. The return value tells the
 * host how the run ended. SIGTERM hands the job back (no attempt used); a run taken over by another
 * worker stops its agent and sends nothing more (fencing).
 */
export async function runJob(job: Job, token: string, ctx: WorkerRunContext): Promise<RunReturn> {
  const data = parseJobData(job.data);
  const harness = data.settings.harness.name;
  const missing = missingDefinition(data.settings, ctx.config);
  if ((ctx.harnesses !== null && !ctx.harnesses.includes(harness)) || missing !== null) {
    if (missing !== null && !ctx.missing.has(`${data.taskId}\0${missing}`)) {
      ctx.missing.add(`${data.taskId}\0${missing}`);
      ctx.logger.warn(
        { event: 'worker.harness-missing', taskId: data.taskId, harness },
        `task ${data.taskId}: ${missing}`,
      );
    }
    await job.moveToDelayed(ctx.clock.now() + NOT_MINE_DELAY_MS, token);
    throw new DelayedError(`task ${data.taskId} runs on harness ${harness}, which this worker does not run`);
  }
  // The task's account is at its usage limit (another worker's run hit it): the job waits in the
  // queue until the reset, and this worker takes runs of other accounts meanwhile.
  const pausedUntil = Number((await ctx.redis.get(accountPauseKey(data.account))) ?? 0);
  if (pausedUntil > ctx.clock.now()) {
    await job.moveToDelayed(pausedUntil, token);
    throw new DelayedError(`account ${data.account} is at its usage limit until ${isoSeconds(pausedUntil)}`);
  }
  const generation = data.generationBase + generationOf(job);
  const log = ctx.logger.child({ taskId: data.taskId, generation });
  const resumed = resumeFrom(job.progress, data.taskId, log);
  const run = new WorkerRun(job, token, ctx, data, generation, resumed, log);
  ctx.running.add(data.taskId);
  try {
    return await run.run();
  } finally {
    ctx.running.delete(data.taskId);
  }
}

/** The newest progress stored in the job: where a run taken over from another worker resumes. */
function resumeFrom(progress: unknown, taskId: string, log: Logger): ParsedProgress | null {
  if (typeof progress !== 'object' || progress === null) return null;
  try {
    const parsed = parseProgress(progress);
    return parsed.taskId === taskId ? parsed : null;
  } catch (error) {
    log.warn(
      { event: 'queue.progress-unreadable', err: error },
      'the job holds progress this worker cannot read: starting from the job',
    );
    return null;
  }
}

class WorkerRun {
  private readonly stop = new AbortController();
  private readonly kill = new AbortController();
  private fenced: FenceReason | null = null;
  /** The vault host's hold (its `STOP`), as the last look at Redis saw it. */
  private held = false;
  private handedBack = false;
  /** The run waits out its account's usage limit in the queue, not in this worker's slot: until then. */
  private delayedUntil: number | null = null;
  private ending: WorkerEnding | null = null;
  private seq: number;
  private commit: string | null;
  private readonly carried: SequencedRecord[];
  private readonly mine: SequencedRecord[] = [];
  private readonly dir: string;

  constructor(
    private readonly job: Job,
    private readonly token: string,
    private readonly ctx: WorkerRunContext,
    private readonly data: ParsedJobData,
    private readonly generation: number,
    private readonly resumed: ParsedProgress | null,
    private readonly log: Logger,
  ) {
    this.seq = resumed?.seq ?? data.seq;
    this.commit = resumed?.commit ?? data.code.commit;
    this.carried = resumed?.records ?? [];
    this.dir = join(ctx.root, 'runs', data.taskId);
  }

  async run(): Promise<RunReturn> {
    const { data, ctx, log } = this;
    const code = { ...data.code, commit: this.commit };
    const clone = await openWorkerClone(join(this.dir, 'code'), code);
    const checkpoint = (this.resumed?.checkpoint ?? data.checkpoint) as PersistenceLoopData | null;
    const shadow = await buildShadowVault(
      join(this.dir, 'vault'),
      {
        taskId: data.taskId,
        fileName: data.fileName,
        taskText: data.taskText,
        checkpoint,
        memory: this.resumed?.memory ?? data.memory,
        workdir: clone.dir,
        branch: code.branch,
      },
      ctx.config,
      isoSeconds(ctx.clock.now()),
    );
    log.info(
      {
        event: 'worker.run-started',
        iteration: checkpoint?.iteration ?? 0,
        branch: code.branch,
        commit: code.commit,
        resumed: this.resumed !== null,
      },
      `running task ${data.taskId} (generation ${this.generation}) from iteration ${(checkpoint?.iteration ?? 0) + 1}`,
    );
    const onHandBack = (): void => {
      this.handedBack = true;
      this.stop.abort('interrupted');
    };
    if (ctx.handBack.aborted) onHandBack();
    ctx.handBack.addEventListener('abort', onHandBack);
    const watching = this.watch();
    let result;
    try {
      result = await runTask(
        {
          file: shadow.file,
          stream: null,
          signal: this.stop.signal,
          kill: this.kill.signal,
          onEvent: (event) => this.onLoopEvent(event),
        },
        {
          config: runConfigOf(ctx.config, data.settings, join(ctx.root, 'runs')),
          host: this.runHost(shadow.layout, clone, code),
          clock: ctx.clock,
          random: ctx.random,
          logger: log,
          env: ctx.env,
          workInPlace: true,
        },
      );
    } finally {
      ctx.handBack.removeEventListener('abort', onHandBack);
      watching.stop();
      await watching.done;
    }
    if (this.fenced !== null) throw this.fencedError();
    // A run that ended the task as the hand-back came (done, rejected, blocked) is sent as ended.
    const endedTask = this.ending !== null && this.ending.kind !== 'stopped';
    if (this.delayedUntil !== null && !this.handedBack && !endedTask) {
      log.info(
        { event: 'worker.handed-back', iteration: result.iterations, until: isoSeconds(this.delayedUntil) },
        `task ${data.taskId} waits for its account's usage limit in the queue until ${isoSeconds(this.delayedUntil)}; this worker takes other runs meanwhile`,
      );
      await this.job.moveToDelayed(this.delayedUntil, this.token);
      throw new DelayedError();
    }
    if (this.handedBack && !endedTask) {
      // Back to the queue without using an attempt: another worker resumes from the last progress.
      log.info(
        { event: 'worker.handed-back', iteration: result.iterations },
        `handed task ${data.taskId} back to the queue`,
      );
      await this.job.moveToWait(this.token);
      throw new WaitingError();
    }
    if (this.ending === null)
      throw new WiggumError(
        'E_INTERNAL',
        `the run of task ${data.taskId} ended (${result.status}) without an ending to send`,
      );
    log.info(
      { event: 'worker.run-ended', status: result.status, iterations: result.iterations },
      `task ${data.taskId}: ${result.status}`,
    );
    return { version: PROTOCOL_VERSION, taskId: data.taskId, generation: this.generation, ending: this.ending };
  }

  /** The private copy is a vault for the loop; the hold and the pauses are the queue's. */
  private runHost(layout: VaultLayout, clone: WorkerClone, code: ParsedJobData['code']): RunHost {
    return vaultRunHost(layout, {
      pauses: this.ctx.pauses,
      signals: { held: () => this.held },
      reports: {
        endings: recordingEndings((ending) => (this.ending = ending)),
        iterationRecorded: (finished) => this.afterIteration(finished, clone, code, layout),
      },
    });
  }

  private onLoopEvent(event: LoopEvent): void {
    if (event.type === 'waiting' && event.why === 'usage-limit') {
      // Every worker holds this account's runs until the limit resets.
      const ttl = Math.max(1, Math.round(event.untilMs - this.ctx.clock.now()));
      void this.ctx.redis
        .set(accountPauseKey(this.data.account), String(event.untilMs), 'PX', ttl)
        .catch(() => undefined);
      // A long wait is not this worker's to sit out: the run goes back to the queue, delayed until
      // the reset (its checkpoint says it waits), and the slot runs other accounts' tasks meanwhile.
      if (ttl >= QUEUE_WAIT_MIN_MS && !this.stop.signal.aborted) {
        this.delayedUntil = event.untilMs;
        this.stop.abort('interrupted');
      }
    }
  }

  /**
   * Until the run ends: the host's stop of this task, the vault's hold (what the loop's `held()`
   * answers), this run's lock (lost: another worker has it, the agent is stopped at once) and its
   * account's usage-limit pause (on the worker's pause board, keyed by account as everywhere).
   */
  private watch(): { stop(): void; done: Promise<void> } {
    // Stopping wakes the sleep between two polls: the run's end must not wait out the interval.
    const ended = new AbortController();
    const { ctx, data } = this;
    const once = async (): Promise<void> => {
      const [stop, hold, lock, pause] = await ctx.redis
        .multi()
        .get(stopKey(data.taskId))
        .get(HOLD_KEY)
        .get(jobLockKey(this.job.id ?? ''))
        .get(accountPauseKey(data.account))
        .exec()
        .then(values);
      if (stop !== null && stop !== undefined && !this.stop.signal.aborted) {
        this.log.info(
          { event: 'worker.stop-asked', reason: stop },
          `the vault host stops task ${data.taskId} (${stop})`,
        );
        this.stop.abort(stop === 'stop-flag' || stop === 'task-gone' ? stop : 'interrupted');
      }
      if (stop === 'kill') this.kill.abort();
      this.held = hold !== null && hold !== undefined;
      if (lock !== this.token && this.fenced === null && !this.handedBack) this.fence('lock-lost');
      const until = Number(pause);
      if (pause !== null && pause !== undefined && until > ctx.clock.now())
        ctx.pauses.pause(data.account, until, 'usage-limit');
    };
    const done = (async () => {
      while (!ended.signal.aborted) {
        await once().catch((error: unknown) =>
          this.log.debug({ event: 'worker.watch-failed', err: error }, "could not read the run's keys; trying again"),
        );
        await ctx.clock.sleep(WATCH_MS, ended.signal).catch(() => undefined);
      }
    })();
    return { stop: () => ended.abort(), done };
  }

  /** A read of Redis tried again while Redis answers with an error (a restart loading its data). */
  private async retried<T>(read: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await read();
      } catch (error) {
        if (attempt >= READ_ATTEMPTS) throw error;
        await this.ctx.clock.sleep(WATCH_MS).catch(() => undefined);
      }
    }
  }

  private fence(reason: FenceReason): void {
    this.fenced = reason;
    this.log.warn(
      { event: 'worker.fenced', reason },
      `task ${this.data.taskId}: ${FENCE_REASON_TEXT[reason]}: its agent is stopped and this worker sends nothing more`,
    );
    this.stop.abort('interrupted');
    this.kill.abort();
  }

  private fencedError(): WiggumError {
    const reason = this.fenced ?? 'lock-lost';
    return new WiggumError('E_QUEUE_FENCED', `task ${this.data.taskId}: ${FENCE_REASON_TEXT[reason]}`);
  }

  /** After each iteration: fence, commit and push with the lease, then send the full state as progress. */
  private async afterIteration(
    finished: FinishedIteration,
    clone: WorkerClone,
    code: ParsedJobData['code'],
    layout: VaultLayout,
  ): Promise<void> {
    const { ctx, data } = this;
    this.seq += 1;
    const log = await logTail(finished.record.logFile);
    this.mine.push({ seq: this.seq, record: finished.record, ...(log === null ? {} : { log }) });
    if (this.fenced !== null) throw this.fencedError();
    // BullMQ keeps a job's attemptsStarted as `ats` in its hash; the hash is gone with the job.
    const [lockValue, started] = await this.retried(() =>
      ctx.redis
        .multi()
        .get(jobLockKey(this.job.id ?? ''))
        .hget(jobKey(this.job.id ?? ''), 'ats')
        .exec()
        .then(values),
    );
    const decision = fenceDecision({
      generation: this.generation,
      job:
        started === null || started === undefined
          ? null
          : { generation: data.generationBase + Number(started), lockHeld: lockValue === this.token },
      branch: { remoteCommit: clone.lease, lease: clone.lease },
    });
    if (decision.kind !== 'proceed') {
      this.fence(decision.reason);
      throw this.fencedError();
    }
    const pushed = await pushIteration(clone, code, `wiggum: ${data.taskId} iteration ${finished.record.iteration}`);
    if (pushed.kind === 'fenced') {
      this.fence('branch-moved');
      throw this.fencedError();
    }
    this.commit = pushed.commit;
    const acked = Number((await ctx.redis.get(ackKey(data.taskId))) ?? 0) || 0;
    const memory = readShadowMemory(layout, data.taskId);
    checkMemorySize(data.taskId, memory);
    const progress: Progress = {
      version: PROTOCOL_VERSION,
      taskId: data.taskId,
      generation: this.generation,
      seq: this.seq,
      records: pendingRecords([...this.carried, ...this.mine], acked),
      checkpoint: finished.checkpoint,
      memory,
      commit: this.commit,
      worker: ctx.worker,
    };
    await this.job.updateProgress(progress);
    await this.awaitAck();
  }

  /**
   * Waits, briefly, until the vault host has written this iteration (its ack): the checkpoint is
   * then in the vault before the next agent starts, as on one machine, and a Redis lost now loses
   * nothing the host has not kept. A host that is down does not hold the work up: past ACK_WAIT_MS
   * the run goes on, and the host catches up from the job's progress when it is back.
   */
  private async awaitAck(): Promise<void> {
    const until = this.ctx.clock.now() + ACK_WAIT_MS;
    while (this.ctx.clock.now() < until) {
      const acked = Number((await this.ctx.redis.get(ackKey(this.data.taskId)).catch(() => null)) ?? 0) || 0;
      if (acked >= this.seq) return;
      await this.ctx.clock.sleep(ACK_POLL_MS).catch(() => undefined);
    }
  }
}
