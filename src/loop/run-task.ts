import { relative } from 'node:path';
import type { Writable } from 'node:stream';
import type { WiggumConfig } from '../config/config.js';
import type { ErrorCode } from '../errors.js';
import { WiggumError, isWiggumError } from '../errors.js';
import { formatProblem } from '../problem.js';
import { clearHarnessRecord, recordHarness } from '../harness/pid-record.js';
import type { Logger } from '../log/logger.js';
import type { IterationRecord } from '../memory/history.js';
import { storySummary } from '../memory/prd.js';
import type { Prd } from '../memory/prd.js';
import { checkTaskAgainstConfig } from '../task/check.js';
import type { Task } from '../task/parse.js';
import { readTaskFile } from '../task/read.js';
import type { LoopStatus } from '../task/schema.js';
import { isoSeconds } from '../time/clock.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
import { checkpointData, loopStateFromCheckpoint } from './checkpoint.js';
import { decide, gate } from './decide.js';
import type { LoopState, NextAction } from './decide.js';
import { endTask, moveToEnd, rejectMalformed, stoppedStatus, writeCheckpoint } from './ending.js';
import type { LoopEvent, TaskRunResult } from './events.js';
import { runIteration } from './iteration.js';
import type { IterationContext } from './iteration.js';
import type { StopReason } from './outcome.js';
import { prepareTask } from './prepare.js';
import type { PreparedTask, RunOverrides } from './prepare.js';
import { completionSummary, failureReport } from './reports.js';
import type { LoopFacts } from './reports.js';

export interface RunTaskDeps {
  config: WiggumConfig;
  layout: VaultLayout;
  clock: Clock;
  random: () => number;
  logger: Logger;
  /** wiggum's own environment, filtered for the harness. */
  env: NodeJS.ProcessEnv;
}

export interface RunTaskRequest {
  file: string;
  overrides?: RunOverrides;
  /** Live harness output; null for `--no-stream`. */
  stream: Writable | null;
  /** Aborted with a StopReason ('stop-flag', 'interrupted', 'task-gone') to stop the task at once. */
  signal: AbortSignal;
  /** While this says true (the vault's STOP file), no iteration starts. */
  isHeld?: () => Promise<boolean>;
  onEvent?: (event: LoopEvent) => void;
}

const HOLD_POLL_MS = 500;

/**
 * Takes one task file through the persistence loop (SPEC.md "One iteration") until it is done,
 * rejected, stopped or interrupted, checkpointing after every iteration. Running it again on the
 * same file resumes from the checkpoint.
 */
export async function runTask(request: RunTaskRequest, deps: RunTaskDeps): Promise<TaskRunResult> {
  const { logger, layout } = deps;
  const endingDeps = { layout, logger, clock: deps.clock };
  const emit = (event: LoopEvent): void => request.onEvent?.(event);

  const read = await readTaskFile(request.file);
  if (!read.result.ok) {
    const result = await rejectMalformed(request.file, read.text, read.result.problems, endingDeps);
    emit({ type: 'ended', taskId: null, result });
    return result;
  }
  const task = read.result.task;
  const log = logger.child({ taskId: task.id });

  const half = halfDoneEnding(task);
  if (half !== null) {
    const file = await moveToEnd(half, task.file, endingDeps);
    log.info('finished moving a task whose loop had already ended');
    const result: TaskRunResult = { status: half, taskId: task.id, file, iterations: task.frontmatter.persistence_loop?.iteration ?? 0 };
    emit({ type: 'ended', taskId: task.id, result });
    return result;
  }

  const problems = await checkTaskAgainstConfig(task, deps.config, layout);
  let prepared: PreparedTask;
  try {
    if (problems.length > 0) throw new WiggumError('E_TASK_SCHEMA', problems.map(formatProblem).join('\n'), { details: { problems } });
    prepared = await prepareTask(task, request.overrides ?? {}, { ...deps, logger: log });
  } catch (error) {
    if (!isWiggumError(error)) throw error;
    const code = error.code;
    const message = error.message;
    log.error({ code }, `cannot start: ${message}`);
    const file = (await endTask('rejected', task.file, task.text, rejection(task, code, message, deps), endingDeps)).file;
    const result: TaskRunResult = { status: 'rejected', taskId: task.id, file, iterations: 0, reason: message, code };
    emit({ type: 'ended', taskId: task.id, result });
    return result;
  }

  const result = await new TaskLoop(task, prepared, request, deps).run();
  emit({ type: 'ended', taskId: task.id, result });
  return result;
}

/** A task whose file already says it ended: a crash came between the final write and the move. */
function halfDoneEnding(task: Task): 'done' | 'rejected' | null {
  const status = task.frontmatter.persistence_loop?.status;
  if (task.frontmatter.state === 'Done' || status === 'done') return 'done';
  if (task.frontmatter.state === 'Rejected' || status === 'rejected') return 'rejected';
  return null;
}

function rejection(task: Task, code: ErrorCode, message: string, deps: RunTaskDeps): Parameters<typeof endTask>[3] {
  const now = deps.clock.now();
  const loop = task.frontmatter.persistence_loop;
  const report = failureReport({
    taskId: task.id,
    harness: task.frontmatter.harness ?? deps.config.harness.defaultName,
    iterations: loop?.iteration ?? 0,
    maxIterations: task.frontmatter.max_iterations ?? deps.config.loop.maxIterations,
    startedAt: loop?.started ?? isoSeconds(now),
    endedAt: isoSeconds(now),
    activeMs: 0,
    stories: task.stories.map((story) => ({ id: story.id, title: story.title, passes: story.checked })),
    sessionDir: null,
    history: [],
    lastOutput: '',
    code,
    reason: message,
    failedIteration: (loop?.iteration ?? 0) + 1,
    errorDetail: message,
    checkpoint: { completed_steps: [], current_step: null },
    logFile: null,
  });
  const state = loopStateFromCheckpoint(loop, task.frontmatter.max_iterations ?? deps.config.loop.maxIterations);
  return {
    keys: {
      state: 'Rejected',
      persistence_loop: checkpointData({ state, status: 'rejected', session: loop?.session ?? 'none', started: loop?.started ?? isoSeconds(now), nowMs: now, completedSteps: [], currentStep: null, ended: true, exitReason: code }),
    },
    section: report,
  };
}

/** The loop of one prepared task: its state and the effects of each decision. */
class TaskLoop {
  private state: LoopState;
  private file: string;
  private lastText: string;
  private body: string;
  private prd: Prd | null = null;
  private readonly started: string;
  private readonly log: Logger;
  private readonly ctx: IterationContext;
  private history: IterationRecord[] = [];
  private lastOutput = '';
  private lastStderr = '';

  constructor(
    task: Task,
    private readonly prepared: PreparedTask,
    private readonly request: RunTaskRequest,
    private readonly deps: RunTaskDeps,
  ) {
    this.file = task.file;
    this.lastText = task.text;
    this.body = task.body;
    this.log = deps.logger.child({ taskId: task.id });
    this.state = loopStateFromCheckpoint(task.frontmatter.persistence_loop, prepared.maxIterations);
    this.started = task.frontmatter.persistence_loop?.started ?? isoSeconds(deps.clock.now());
    this.ctx = {
      taskId: task.id,
      taskFile: () => this.file,
      title: task.frontmatter.title ?? task.id,
      workdir: prepared.workdir,
      harness: prepared.harness,
      driver: prepared.driver,
      promise: prepared.promise,
      verify: prepared.verify,
      branch: prepared.branch,
      git: prepared.git,
      store: prepared.session.store,
      config: deps.config,
      clock: deps.clock,
      logger: this.log,
      env: deps.env,
      stream: request.stream,
      signal: request.signal,
      onSpawn: (pid) => {
        if (prepared.harnessRecord !== null) void recordHarness(prepared.harnessRecord, pid).catch(() => undefined);
      },
    };
  }

  private get taskId(): string {
    return this.ctx.taskId;
  }

  async run(): Promise<TaskRunResult> {
    const store = this.prepared.session.store;
    this.history = await store.loadHistory();
    const last = this.history.at(-1);
    if (last?.completionFound === true && last.completionAccepted === false && last.refusal !== undefined) this.state.refusal = last.refusal;
    this.prd = await store.loadPrd();
    const resumed = this.state.iteration > 0 || this.history.length > 0;
    this.log.info(
      { iteration: this.state.iteration, maxIterations: this.state.maxIterations, harness: this.prepared.harness.name, workdir: this.prepared.workdir, durable: store.durable, session: this.prepared.session.sessionId },
      resumed ? `resuming after iteration ${this.state.iteration}` : 'starting',
    );
    this.request.onEvent?.({
      type: 'started',
      taskId: this.taskId,
      file: this.file,
      iteration: this.state.iteration,
      maxIterations: this.state.maxIterations,
      resumed,
      durable: store.durable,
      harness: this.prepared.harness.name,
    });
    await this.checkpoint('running');

    for (;;) {
      const verdict = gate(this.state, { stop: this.stopReason(), nowMs: this.deps.clock.now() }, this.prepared.loop);
      if (verdict.kind === 'stop') return this.stop(verdict.reason);
      if (verdict.kind === 'reject') return this.reject(verdict.code, verdict.reason);
      if (verdict.warn) {
        this.state = { ...this.state, warned: true };
        this.log.warn(
          { iteration: this.state.iteration + 1, maxIterations: this.state.maxIterations },
          `approaching max iterations: iteration ${this.state.iteration + 1} of ${this.state.maxIterations}`,
        );
      }
      if (await this.holdWhileStopFileExists()) continue;
      if (!(await this.reloadBody())) return this.stop('task-gone');

      const next = storySummary(this.prd ?? (await store.loadPrd())).nextStory;
      this.request.onEvent?.({
        type: 'iteration',
        taskId: this.taskId,
        iteration: this.state.iteration + 1,
        attempt: this.state.attempt,
        maxIterations: this.state.maxIterations,
        step: next?.id ?? null,
        startedAtMs: this.deps.clock.now(),
      });
      let run;
      try {
        run = await runIteration(this.ctx, this.state, this.body);
      } catch (error) {
        if (isWiggumError(error, 'E_MEMORY_CORRUPT')) return this.reject('E_MEMORY_CORRUPT', error.message);
        throw error;
      } finally {
        if (this.prepared.harnessRecord !== null) await clearHarnessRecord(this.prepared.harnessRecord).catch(() => undefined);
      }
      this.prd = run.prd;
      this.lastOutput = run.outputTail;
      this.lastStderr = run.stderrTail;

      const decision = decide(run.outcome, this.state, this.prepared.loop, this.deps.clock.now(), this.deps.random);
      this.state = { ...decision.state, activeMs: decision.state.activeMs + run.record.durationMs };
      const record: IterationRecord = { ...run.record, action: decision.action.kind, nextState: describe(decision.action) };
      this.history.push(record);
      await store.appendHistory(record).catch((error: unknown) => this.log.error({ err: error }, 'could not append to history.jsonl'));
      this.log.info(
        { iteration: record.iteration, attempt: record.attempt, exitCode: record.exitCode, signal: record.signal, outcome: record.outcome, promise: record.completionFound, stories: `${record.storiesPassing}/${record.storiesTotal}`, filesChanged: record.git?.filesChanged, durationMs: record.durationMs, action: record.action, next: record.nextState },
        `iteration ${record.iteration}${record.attempt > 0 ? ` (retry ${record.attempt})` : ''}: ${record.outcome} → ${record.nextState}`,
      );
      this.request.onEvent?.({ type: 'iteration-end', taskId: this.taskId, record });

      const action = decision.action;
      if (action.kind === 'done') return this.done();
      if (action.kind === 'reject') return this.reject(action.code, action.reason, record.iteration);
      if (action.kind === 'stop') return this.stop(action.reason);
      if (action.kind === 'continue' && this.state.iteration % this.deps.config.loop.checkpointInterval !== 0) continue;
      await this.checkpoint('running', record);
      if (action.kind === 'retry' || action.kind === 'wait') {
        const untilMs = action.kind === 'retry' ? this.deps.clock.now() + action.delayMs : action.untilMs;
        this.request.onEvent?.({ type: 'waiting', taskId: this.taskId, untilMs, why: action.kind === 'retry' ? 'retry' : 'usage-limit' });
        const waited = await this.sleepUntil(untilMs);
        // Backoff counts towards the total timeout; waiting out a usage limit does not.
        if (action.kind === 'retry') this.state = { ...this.state, activeMs: this.state.activeMs + waited };
      }
    }
  }

  private stopReason(): StopReason | null {
    if (!this.request.signal.aborted) return null;
    const reason: unknown = this.request.signal.reason;
    return reason === 'stop-flag' || reason === 'task-gone' ? reason : 'interrupted';
  }

  /** The vault's STOP file holds the loop before its next iteration; returns whether it held. */
  private async holdWhileStopFileExists(): Promise<boolean> {
    if (this.request.isHeld === undefined || !(await this.request.isHeld())) return false;
    this.log.info('the vault STOP file exists: holding before the next iteration');
    this.request.onEvent?.({ type: 'waiting', taskId: this.taskId, untilMs: Number.POSITIVE_INFINITY, why: 'hold' });
    while (!this.request.signal.aborted && (await this.request.isHeld())) {
      await this.deps.clock.sleep(HOLD_POLL_MS, this.request.signal).catch(() => undefined);
    }
    return true;
  }

  /** Sleeps until `untilMs` or a stop; returns the time actually waited. */
  private async sleepUntil(untilMs: number): Promise<number> {
    const from = this.deps.clock.now();
    await this.deps.clock.sleep(Math.max(0, untilMs - from), this.request.signal).catch(() => undefined);
    return this.deps.clock.now() - from;
  }

  /** The body is re-read every iteration, so edits the user makes mid-loop reach the next prompt. */
  private async reloadBody(): Promise<boolean> {
    try {
      const read = await readTaskFile(this.file);
      if (read.result.ok) {
        this.body = read.result.task.body;
        this.lastText = read.result.task.text;
      } else {
        this.log.warn({ problems: read.result.problems.length }, 'the task file does not parse right now (an edit in progress?): using its last good body');
      }
      return true;
    } catch (error) {
      if (isWiggumError(error, 'E_TASK_NOT_FOUND')) return false;
      throw error;
    }
  }

  private steps(): { completedSteps: string[]; currentStep: string | null } {
    const stories = this.prd?.userStories ?? [];
    const next = this.prd === null ? null : storySummary(this.prd).nextStory;
    return { completedSteps: stories.filter((story) => story.passes).map((story) => story.id), currentStep: next?.id ?? null };
  }

  private checkpointKeys(status: LoopStatus, record?: IterationRecord, ending?: { exitReason: string }): Parameters<typeof checkpointData>[0] {
    return {
      state: this.state,
      status,
      session: this.prepared.session.sessionId,
      started: this.started,
      nowMs: this.deps.clock.now(),
      ...this.steps(),
      ...(record === undefined ? {} : { lastOutcome: record.outcome }),
      ...(record?.error === undefined ? {} : { lastError: record.error.message }),
      ...(ending === undefined ? {} : { ended: true, exitReason: ending.exitReason }),
    };
  }

  private async checkpoint(status: LoopStatus, record?: IterationRecord): Promise<void> {
    const text = await writeCheckpoint(this.file, this.lastText, { keys: { state: 'Approved', persistence_loop: checkpointData(this.checkpointKeys(status, record)) } }, this.endingDeps());
    if (text !== null) this.lastText = text;
  }

  private endingDeps(): { layout: VaultLayout; logger: Logger; clock: Clock } {
    return { layout: this.deps.layout, logger: this.log, clock: this.deps.clock };
  }

  private facts(): LoopFacts {
    const store = this.prepared.session.store;
    return {
      taskId: this.taskId,
      harness: this.prepared.harness.name,
      iterations: this.state.iteration,
      maxIterations: this.state.maxIterations,
      startedAt: this.started,
      endedAt: isoSeconds(this.deps.clock.now()),
      activeMs: this.state.activeMs,
      stories: (this.prd?.userStories ?? []).map((story) => ({ id: story.id, title: story.title, passes: story.passes })),
      sessionDir: store.paths === null ? null : relative(this.deps.layout.root, store.paths.dir) || '.',
      history: this.history,
      lastOutput: this.lastOutput.split('\n').slice(-20).join('\n'),
    };
  }

  private async done(): Promise<TaskRunResult> {
    const summary = completionSummary(this.facts());
    const ended = await endTask('done', this.file, this.lastText, { keys: { state: 'Done', persistence_loop: checkpointData(this.checkpointKeys('done', undefined, { exitReason: 'completed' })) }, section: summary }, this.endingDeps());
    this.log.info({ iterations: this.state.iteration, file: ended.file }, `done after ${this.state.iteration} iterations`);
    return { status: 'done', taskId: this.taskId, file: ended.file, iterations: this.state.iteration };
  }

  private async reject(code: ErrorCode, reason: string, failedIteration = this.state.iteration + 1): Promise<TaskRunResult> {
    const lastRecord = this.history.at(-1);
    const report = failureReport({
      ...this.facts(),
      code,
      reason,
      failedIteration,
      errorDetail: this.lastStderr.split('\n').slice(-30).join('\n') || reason,
      checkpoint: { completed_steps: this.steps().completedSteps, current_step: this.steps().currentStep, state_data: { attempt: this.state.attempt, no_progress: this.state.noProgressStreak } },
      logFile: lastRecord?.logFile === undefined ? null : relative(this.deps.layout.root, lastRecord.logFile),
    });
    this.log.error({ code, iteration: failedIteration }, `rejected: ${reason}`);
    const ended = await endTask('rejected', this.file, this.lastText, { keys: { state: 'Rejected', persistence_loop: checkpointData(this.checkpointKeys('rejected', lastRecord, { exitReason: code })) }, section: report }, this.endingDeps());
    return { status: 'rejected', taskId: this.taskId, file: ended.file, iterations: this.state.iteration, reason, code };
  }

  private async stop(reason: StopReason): Promise<TaskRunResult> {
    const status = stoppedStatus(reason);
    if (reason !== 'task-gone') await this.checkpoint(status);
    this.log.info({ iteration: this.state.iteration, reason }, reason === 'task-gone' ? 'the task file was moved or deleted: stopped, memory kept' : `${status} after iteration ${this.state.iteration}`);
    return { status, taskId: this.taskId, file: this.file, iterations: this.state.iteration, reason };
  }
}

function describe(action: NextAction): string {
  switch (action.kind) {
    case 'continue':
      return 'next iteration';
    case 'retry':
      return `retry ${action.attempt} in ${(action.delayMs / 1000).toFixed(1)} s`;
    case 'wait':
      return `wait for the usage limit until ${new Date(action.untilMs).toISOString()}`;
    case 'done':
      return 'Done';
    case 'reject':
      return `Rejected (${action.code})`;
    case 'stop':
      return action.reason === 'stop-flag' ? 'stopped' : action.reason === 'task-gone' ? 'task gone' : 'interrupted';
  }
}
