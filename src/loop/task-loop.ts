import { existsSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { WiggumError, isWiggumError } from '../errors.js';
import { describeErrorChain, secretValues } from './error-chain.js';
import { clearHarnessRecord, emptyHarnessRecord } from '../harness/pid-record.js';
import type { Logger } from '../log/logger.js';
import type { IterationRecord } from '../memory/history.js';
import { throughRunLink } from '../memory/run-link.js';
import { addRun } from '../memory/spent.js';
import { storySummary } from '../memory/prd.js';
import type { Prd, UserStory } from '../memory/prd.js';
import type { Task } from '../task/parse.js';
import { describeIterations, iterationCount } from '../task/iteration-count.js';
import type { LoopStatus } from '../task/vocabulary.js';
import { needsReview } from '../task/review.js';
import { isoSeconds } from '../time/clock.js';
import { checkpointData } from './checkpoint.js';
import { resumePlan } from './resume-plan.js';
import type { ResumePlan } from './resume-plan.js';
import { accountOf } from '../config/config.js';
import type { PauseBoard } from './run-host.js';
import { decide, describeNextAction, gate } from './decide.js';
import type { LoopState, WaitCause } from './decide.js';
import { isBlocked } from './ending.js';
import { answerState } from '../task/question-section.js';
import type { AskedText } from './question.js';
import { writeCheckpoint } from './write-checkpoint.js';
import type { EndingDeps, LoopFile } from './ending.js';
import type { Endings } from './endings.js';
import type { TaskRunResult } from './events.js';
import { runIteration } from './iteration.js';
import { landingFiles } from './land-task.js';
import { landCompleteTask } from './landing-loop.js';
import { runVerifyCheck } from './verify.js';
import type { VerifyResult } from '../git/land-merge.js';
import { findRenamedTaskFile } from './follow-file.js';
import { iterationContext } from './iteration-context.js';
import { reloadTaskFile, storiesAddedDuringRun } from './task-file-edits.js';
import type { TaskFileView } from './task-file-edits.js';
import { withLateStoriesNote, withStoriesAddedDuringRun } from './late-stories.js';
import { withMaxIterationsEdit } from './max-iterations.js';
import { holdWhile, sleepCounted } from './waits.js';
import { isOutageCode } from './retry-policy.js';
import type { IterationContext, IterationRun } from './iteration.js';
import type { GitState } from '../git/changes.js';
import type { IterationOutcome, StopReason } from './outcome.js';
import { stopReasonOf } from './outcome.js';
import type { PreparedTask } from './prepare.js';
import type { LoopFacts } from './reports.js';
import { isAgentReported } from './reports.js';
import type { NextAction } from './decide.js';
import type { RunTaskDeps, RunTaskRequest } from './request.js';

/** Runs the loop of a prepared task, from where its checkpoint and history say it stands (resume-plan.ts). */
export async function runTaskLoop(
  task: Task,
  prepared: PreparedTask,
  request: RunTaskRequest,
  deps: RunTaskDeps,
): Promise<TaskRunResult> {
  const history = await prepared.session.store.loadHistory();
  const plan = resumePlan(task.frontmatter.persistence_loop, history, {
    maxIterations: prepared.maxIterations,
    nowMs: deps.clock.now(),
  });
  return new TaskLoop(task, prepared, history, plan, request, deps).run();
}

/** The loop of one prepared task: its state and the effects of each decision. */
class TaskLoop {
  private state: LoopState;
  /** The task file; it follows a rename by the task's author (see `follow`). */
  private file: string;
  private lastText: string;
  private body: string;
  private prd: Prd | null = null;
  /** The file's own `max_iterations` when last read, to apply the user's edit of it. */
  private fileMax: number | null;
  /** Stories added to the checklist during the last iteration that no iteration has worked on. */
  private late: UserStory[] = [];
  private readonly started: string;
  /** Whether the complete task waits in Review/ for a person rather than going to Done/ (task key, else config). */
  private readonly review: boolean;
  /** History lines from before the task was last sent back; kept in every checkpoint of this run. */
  private readonly historyBase: number;
  private readonly log: Logger;
  private readonly ctx: IterationContext;
  private readonly history: IterationRecord[];
  private lastOutput = '';
  /** The repository as the last iteration left it, while the loop goes straight on to the next. */
  private gitState: GitState | null = null;
  private lastStderr = '';
  private readonly pauses: PauseBoard;
  /** The account the task's harness runs on: what its usage limits and outages pause. */
  private readonly account: string;
  /**
   * The folder fsync of the last checkpoint that counted an iteration, not waited for when it was
   * written: the next agent runs meanwhile, and the next history line or ending waits for it, so
   * the history is never more than one iteration ahead of a durable checkpoint (resume-plan.ts).
   */
  private checkpointSynced: Promise<void> | null = null;
  /**
   * The checkpoint of the last iteration while the next agent runs (see `checkpointBehind`): awaited,
   * with its error, before anything else reads or writes the task file or the history.
   */
  private checkpointWriting: Promise<void> | null = null;
  /** The question and answer of a blocked task moved back answered: kept in the next history line. */
  private answer: { question: string; text: string } | null;

  constructor(
    task: Task,
    private readonly prepared: PreparedTask,
    history: IterationRecord[],
    private readonly plan: ResumePlan,
    private readonly request: RunTaskRequest,
    private readonly deps: RunTaskDeps,
  ) {
    this.file = task.file;
    this.lastText = task.text;
    this.body = task.body;
    this.fileMax = task.frontmatter.max_iterations ?? null;
    this.log = deps.logger.child({ taskId: task.id });
    this.history = history;
    this.state = plan.state;
    this.pauses = deps.host.pauses;
    this.account = accountOf(prepared.harness);
    // A task that was waiting out a usage limit or an outage when wiggum stopped goes on waiting after a restart.
    if (plan.pause !== null) this.pauses.pause(this.account, plan.pause.untilMs, plan.pause.why);
    this.started = plan.started;
    this.review = needsReview(task.frontmatter.review, deps.config.review.required);
    this.historyBase = plan.historyBase;
    this.ctx = iterationContext(task, prepared, request, deps, this.log);
    const answered = isBlocked(task) ? answerState(task.body) : null;
    this.answer = answered?.kind === 'answered' ? { question: answered.question, text: answered.answer } : null;
  }

  async run(): Promise<TaskRunResult> {
    try {
      return await this.loop();
    } finally {
      // A loop that ends by an exception leaves no write of its task file behind it.
      await this.checkpointWriting?.catch(() => undefined);
      await this.removeHarnessRecord();
      this.pauses.forget(this.account, this.ctx.taskId);
    }
  }

  private async loop(): Promise<TaskRunResult> {
    const store = this.prepared.session.store;
    const { countedIteration, resumed } = this.plan;
    if (countedIteration !== null) {
      this.log.info(
        { event: 'loop.crashed-iteration-counted', iteration: countedIteration },
        `iteration ${countedIteration} finished before a crash that kept it from the checkpoint; counting it`,
      );
    }
    this.prd = await store.loadPrd();
    const { iteration, maxIterations } = this.state;
    this.log.info(
      {
        event: resumed ? 'loop.resumed' : 'loop.started',
        iterations: iteration,
        maxIterations,
        harness: this.prepared.harness.name,
        workdir: this.prepared.workdir,
        durable: store.durable,
        session: this.prepared.session.sessionId,
      },
      resumed ? `resuming: ${describeIterations(iterationCount(iteration, maxIterations, false))}` : 'starting',
    );
    this.request.onEvent?.({
      type: 'started',
      taskId: this.ctx.taskId,
      file: this.file,
      iteration,
      maxIterations,
      resumed,
      durable: store.durable,
      harness: this.prepared.harness.name,
      session: this.prepared.session.sessionId,
      ...(this.prepared.worktree === null
        ? {}
        : { worktree: { path: this.prepared.worktree.path, branch: this.prepared.worktree.branch } }),
    });
    // The iteration counted from the history had completed the task: a crash came between its
    // history line and the Done file. End it now rather than run the agent once more.
    if (this.plan.first === 'done') {
      const ended = await this.complete();
      if (ended !== null) return ended;
    }
    await this.checkpoint('running');

    for (;;) {
      const verdict = gate(this.state, { stop: this.stopReason(), nowMs: this.deps.clock.now() }, this.prepared.loop);
      if (verdict.kind === 'stop') return this.stop(verdict.reason);
      // Raised here, where the loop finds the bound reached, so its stack points at the decision.
      if (verdict.kind === 'reject')
        return this.reject(new WiggumError(verdict.code, withLateStoriesNote(verdict.reason, this.late)));
      if (verdict.warn) {
        this.state = { ...this.state, warned: true };
        this.log.warn(
          {
            event: 'loop.near-max-iterations',
            iteration: this.state.iteration + 1,
            maxIterations: this.state.maxIterations,
          },
          `approaching max iterations: iteration ${this.state.iteration + 1} of ${this.state.maxIterations}`,
        );
      }
      if (await this.waitForHarnessPause()) {
        this.gitState = null;
        continue;
      }
      const held = await holdWhile(
        () => this.deps.host.signals.held(),
        this.deps.clock,
        this.request.signal,
        () => {
          this.log.info({ event: 'loop.holding' }, 'the vault STOP file exists: holding before the next iteration');
          this.request.onEvent?.({
            type: 'waiting',
            taskId: this.ctx.taskId,
            untilMs: Number.POSITIVE_INFINITY,
            why: 'hold',
          });
        },
      );
      if (held) {
        this.gitState = null;
        continue;
      }
      await this.follow();
      // While the last checkpoint is being written, the file may show the text before or after its
      // rename: the user's edits are read either way, and the checkpoint sets the text it wrote.
      const writing = this.checkpointWriting !== null;
      const view = await reloadTaskFile(this.file, this.view(), this.ctx.store, this.log);
      if (view === null) return this.stop('task-gone');
      const bound = withMaxIterationsEdit(
        this.state,
        {
          fileBefore: this.fileMax,
          fileNow: view.fileMax,
          override: this.request.overrides?.maxIterations,
          configDefault: this.deps.config.loop.maxIterations,
        },
        this.log,
      );
      ({ body: this.body, prd: this.prd, fileMax: this.fileMax } = view);
      if (!writing) this.lastText = view.text;
      // The user's edit of max_iterations takes effect before this iteration, which the gate checks again.
      if (bound !== this.state) {
        this.state = bound;
        continue;
      }

      this.request.onEvent?.({
        type: 'iteration',
        taskId: this.ctx.taskId,
        iteration: this.state.iteration + 1,
        attempt: this.state.attempt,
        maxIterations: this.state.maxIterations,
        step: this.steps().currentStep,
        startedAtMs: this.deps.clock.now(),
      });
      let run;
      try {
        run = await runIteration(this.ctx, this.state, this.body, this.gitState);
      } catch (error) {
        if (isWiggumError(error, 'E_MEMORY_CORRUPT')) return this.reject(error);
        throw error;
      } finally {
        if (this.prepared.harnessRecord !== null) emptyHarnessRecord(this.prepared.harnessRecord);
      }
      // The last checkpoint, written behind this run, is renamed before the file is read again.
      await this.checkpointWritten();
      // Stories the user added while the agent ran: a completion claim cannot cover them.
      await this.follow();
      const after = await storiesAddedDuringRun(this.file, { ...this.view(), prd: run.prd }, this.ctx.store, this.log);
      ({ body: this.body, text: this.lastText, prd: this.prd } = after.view);
      this.late = after.added;
      run = { ...run, ...withStoriesAddedDuringRun(run, after.added, this.prd ?? run.prd) };
      this.gitState = run.gitState;
      this.lastOutput = run.outputTail;
      this.lastStderr = run.stderrTail;

      const harness = this.prepared.harness.name;
      const decision = decide(
        run.outcome,
        this.state,
        this.prepared.loop,
        this.deps.clock.now(),
        this.deps.random,
        this.pauses.othersFailing(this.account, this.ctx.taskId),
      );
      this.noteAnswer(run.outcome);
      // Asking uses neither an iteration nor the budgets: the run that asked is in the history only.
      this.state =
        decision.action.kind === 'block'
          ? decision.state
          : {
              ...decision.state,
              activeMs: decision.state.activeMs + run.record.durationMs,
              spent: addRun(decision.state.spent, run.record),
            };
      const record: IterationRecord = {
        ...run.record,
        ...(this.answer === null ? {} : { answer: this.answer }),
        action: decision.action.kind,
        nextState: describeNextAction(decision.action),
      };
      this.answer = null;
      this.history.push(record);
      // A record that cannot be kept (the disk full, the folder unwritable) ends this run before
      // the checkpoint counts the iteration: the task resumes from its last checkpoint and runs the
      // iteration again, so history and checkpoint never disagree. When a checkpoint follows, the
      // line's fsync runs beside the checkpoint's, whose rename waits for it (one disk wait less
      // per iteration); otherwise the line is durable before anything else happens.
      await this.checkpointDurable();
      const historyKept = store.appendHistory(record);
      const action = decision.action;
      const checkpointFollows =
        action.kind === 'retry' ||
        action.kind === 'wait' ||
        (action.kind === 'continue' && this.state.iteration % this.deps.config.loop.checkpointInterval === 0);
      if (checkpointFollows) historyKept.catch(() => undefined);
      else await historyKept;
      this.log.info(
        {
          event: 'iteration.ended',
          iteration: record.iteration,
          attempt: record.attempt,
          exitCode: record.exitCode,
          signal: record.signal,
          outcome: record.outcome,
          promise: record.completionFound,
          stories: `${record.storiesPassing}/${record.storiesTotal}`,
          filesChanged: record.git?.filesChanged,
          durationMs: record.durationMs,
          action: record.action,
          next: record.nextState,
        },
        `iteration ${record.iteration}${record.attempt > 0 ? ` (retry ${record.attempt})` : ''}: ${record.outcome} → ${record.nextState}`,
      );
      this.request.onEvent?.({ type: 'iteration-end', taskId: this.ctx.taskId, record });
      // A worker sends each iteration to the vault host before anything else happens (queue/worker-run.ts).
      await this.deps.host.reports.iterationRecorded?.({
        record,
        checkpoint: checkpointData(
          this.checkpointKeys(
            action.kind === 'wait' ? 'waiting' : 'running',
            record,
            undefined,
            action.kind === 'wait' ? action : undefined,
          ),
        ),
      });

      if (action.kind === 'block') return this.block(action.question, record);
      if (action.kind === 'done') {
        const ended = await this.complete();
        if (ended !== null) return ended;
        // The landing sent the task back (a conflict): the next iteration resolves it.
        this.gitState = null;
        await this.checkpoint('running');
        continue;
      }
      if (action.kind === 'reject') return this.reject(rejection(action, run.outcome), record.iteration);
      if (action.kind === 'stop') return this.stop(action.reason);
      if (action.kind === 'continue' && this.state.iteration % this.deps.config.loop.checkpointInterval !== 0) continue;
      if (action.kind === 'continue') {
        this.checkpointBehind(record, historyKept);
        continue;
      }
      if (action.kind === 'wait') this.pauses.pause(this.account, action.untilMs, action.why);
      await this.checkpoint(
        action.kind === 'wait' ? 'waiting' : 'running',
        record,
        action.kind === 'wait' ? action : undefined,
        historyKept,
      );
      // Awaited again for its error, had the checkpoint not been written (the file gone or mid-edit).
      await historyKept;
      if (action.kind === 'retry' || action.kind === 'wait') {
        const now = this.deps.clock.now();
        // A backoff is a duration (exactly the policy's delay); a usage limit ends at a time.
        const waitMs = action.kind === 'retry' ? action.delayMs : Math.max(0, action.untilMs - now);
        this.request.onEvent?.({
          type: 'waiting',
          taskId: this.ctx.taskId,
          untilMs: now + waitMs,
          why: action.kind === 'retry' ? 'retry' : action.why,
          harness,
        });
        if (action.kind === 'wait' && action.why === 'outage') {
          this.log.warn(
            {
              event: 'harness.outage',
              harness,
              until: isoSeconds(action.untilMs),
              since: this.state.waitingSinceMs === null ? undefined : isoSeconds(this.state.waitingSinceMs),
            },
            `harness ${harness} does not answer (an outage): it is paused, probed again at ${isoSeconds(action.untilMs)}`,
          );
        }
        const waited = await sleepCounted(this.deps.clock, waitMs, this.request.signal);
        // Time passed: anyone may have committed meanwhile, so the next iteration looks again.
        this.gitState = null;
        // Backoff counts towards the total timeout; waiting out a usage limit or an outage does not.
        if (action.kind === 'retry') this.state = { ...this.state, activeMs: this.state.activeMs + waited };
      }
    }
  }

  private view(): TaskFileView {
    return { body: this.body, text: this.lastText, prd: this.prd, fileMax: this.fileMax };
  }

  private stopReason(): StopReason | null {
    return this.request.signal.aborted ? stopReasonOf(this.request.signal) : null;
  }

  /**
   * Tells the other tasks on this harness what its run came to: a network or overload failure
   * counts towards an outage; any other answer (a stop aside) ends one.
   */
  private noteAnswer(outcome: IterationRun['outcome']): void {
    if (outcome.kind === 'transient' && isOutageCode(outcome.code)) this.pauses.failed(this.account, this.ctx.taskId);
    else if (outcome.kind !== 'stopped' && outcome.kind !== 'transient') this.pauses.answered(this.account);
  }

  /**
   * Waits while the task's harness is paused for a usage limit or an outage (this task's or
   * another's), without using an attempt; returns whether it waited.
   */
  private async waitForHarnessPause(): Promise<boolean> {
    const harness = this.prepared.harness.name;
    const now = this.deps.clock.now();
    const pause = this.pauses.pauseOf(this.account, now);
    if (pause === null) return false;
    const until = pause.untilMs;
    this.log.info(
      { event: 'harness.paused', harness, until: isoSeconds(until), why: pause.why },
      pause.why === 'outage'
        ? `harness ${harness} is in an outage, probed again at ${isoSeconds(until)}: waiting`
        : `harness ${harness} is at its usage limit until ${isoSeconds(until)}: waiting`,
    );
    await this.checkpoint('waiting', undefined, pause);
    this.request.onEvent?.({ type: 'waiting', taskId: this.ctx.taskId, untilMs: until, why: pause.why, harness });
    await sleepCounted(this.deps.clock, until - now, this.request.signal);
    return true;
  }

  private steps(): { completedSteps: string[]; currentStep: string | null } {
    const stories = this.prd?.userStories ?? [];
    const next = this.prd === null ? null : storySummary(this.prd).nextStory;
    return {
      completedSteps: stories.filter((story) => story.passes).map((story) => story.id),
      currentStep: next?.id ?? null,
    };
  }

  private checkpointKeys(
    status: LoopStatus,
    record?: IterationRecord,
    ending?: { exitReason: string },
    wait?: { untilMs: number; why: WaitCause },
  ): Parameters<typeof checkpointData>[0] {
    return {
      state: this.state,
      status,
      session: this.prepared.session.sessionId,
      started: this.started,
      nowMs: this.deps.clock.now(),
      historyBase: this.historyBase,
      ...this.steps(),
      ...(record === undefined ? {} : { lastOutcome: record.outcome }),
      ...(record?.error === undefined ? {} : { lastError: record.error.message }),
      ...(ending === undefined ? {} : { ended: true, exitReason: ending.exitReason }),
      ...(wait === undefined ? {} : { waitingUntilMs: wait.untilMs, waitingFor: wait.why }),
      ...(this.prepared.memory === null ? {} : { memory: this.prepared.memory }),
    };
  }

  /**
   * `after`: the history line this checkpoint counts, which must be durable before it shows; such a
   * checkpoint's folder fsync is waited for later (checkpointSynced).
   */
  private async checkpoint(
    status: LoopStatus,
    record?: IterationRecord,
    wait?: { untilMs: number; why: WaitCause },
    after?: Promise<void>,
  ): Promise<void> {
    // Taken now: the loop goes on while a checkpoint written behind the next agent waits for its fsyncs.
    const keys = checkpointData(this.checkpointKeys(status, record, undefined, wait));
    await this.checkpointWritten();
    await this.follow();
    const text = await writeCheckpoint(
      this.file,
      this.lastText,
      {
        keys: { state: 'Approved', persistence_loop: keys },
        ...(after === undefined ? {} : { after, deferFolderSync: (synced) => this.deferSync(synced) }),
      },
      this.endingDeps(),
    );
    if (text === null) return;
    this.lastText = text;
    this.request.onEvent?.({
      type: 'checkpoint',
      taskId: this.ctx.taskId,
      iteration: keys.iteration,
      maxIterations: keys.max_iterations,
    });
  }

  /** The harness record is emptied after each run (no record: nothing to kill), removed when the loop ends. */
  private async removeHarnessRecord(): Promise<void> {
    if (this.prepared.harnessRecord !== null)
      await clearHarnessRecord(this.prepared.harnessRecord).catch(() => undefined);
  }

  private deferSync(synced: Promise<void>): void {
    // Handled when awaited (checkpointDurable); until then its failure must not be an unhandled rejection.
    synced.catch(() => undefined);
    this.checkpointSynced = synced;
  }

  /**
   * The checkpoint of an iteration that goes straight on, written while the next agent runs: its
   * history line is already written (in the page cache, so a kill -9 keeps it, and a resume counts
   * it: resume-plan.ts), and the checkpoint's rename still waits for that line's fsync and its own.
   * The next agent no longer waits for those fsyncs; whatever follows its run (the next history
   * line, an ending, another checkpoint) waits for this one (`checkpointDurable`). After a power loss
   * the record of at most this one iteration is lost, and the iteration runs again.
   */
  private checkpointBehind(record: IterationRecord, historyKept: Promise<void>): void {
    const written = this.checkpoint('running', record, undefined, historyKept).then(() => historyKept);
    // Handled when awaited (checkpointWritten); until then its failure must not be an unhandled rejection.
    written.catch(() => undefined);
    this.checkpointWriting = written;
  }

  private async checkpointWritten(): Promise<void> {
    const writing = this.checkpointWriting;
    this.checkpointWriting = null;
    await writing;
  }

  private async checkpointDurable(): Promise<void> {
    await this.checkpointWritten();
    const synced = this.checkpointSynced;
    this.checkpointSynced = null;
    await synced;
  }

  private endings(): Endings {
    return this.deps.host.reports.endings;
  }

  private endingDeps(): EndingDeps {
    const { places, taskFile } = this.deps.host;
    return { places, taskFile, logger: this.log, clock: this.deps.clock };
  }

  private target(): LoopFile {
    return { taskId: this.ctx.taskId, file: this.file, lastText: this.lastText };
  }

  private facts(): LoopFacts {
    const store = this.prepared.session.store;
    return {
      taskId: this.ctx.taskId,
      harness: this.prepared.harness.name,
      iterations: this.state.iteration,
      maxIterations: this.state.maxIterations,
      startedAt: this.started,
      endedAt: isoSeconds(this.deps.clock.now()),
      activeMs: this.state.activeMs,
      spent: this.state.spent,
      stories: (this.prd?.userStories ?? []).map((story) => ({
        id: story.id,
        title: story.title,
        passes: story.passes,
      })),
      // The run's own address (run-link.ts): it still holds this run's memory after the id runs again.
      sessionDir:
        store.paths === null
          ? null
          : relative(this.deps.host.places.root, this.prepared.session.runDir ?? store.paths.dir) || '.',
      history: this.history,
      lastOutput: this.lastOutput.split('\n').slice(-20).join('\n'),
    };
  }

  /** The task's author renamed its file inside Approved/: the run goes on with the file under its new name. */
  private async follow(): Promise<void> {
    if (existsSync(this.file)) return;
    const renamed = await findRenamedTaskFile(
      this.file,
      this.prepared.session.sessionId,
      this.deps.host.taskFile.isTaskFileName,
    );
    if (renamed === null) return;
    this.log.info(
      { event: 'loop.rename-followed', from: basename(this.file), to: basename(renamed) },
      `the task file was renamed to ${basename(renamed)}: the run follows it`,
    );
    this.file = renamed;
  }

  /**
   * The task is complete: a task in its own worktree lands its branch first (landing-loop.ts) and
   * is done only once it has; null when the landing sent it back to the loop.
   */
  private async complete(): Promise<TaskRunResult | null> {
    const worktree = this.prepared.worktree;
    if (worktree === null) return this.done();
    await this.checkpointDurable();
    await this.removeHarnessRecord();
    const end = await landCompleteTask({
      taskId: this.ctx.taskId,
      title: this.ctx.title,
      prepared: { ...this.prepared, worktree },
      config: this.deps.config,
      clock: this.deps.clock,
      random: this.deps.random,
      log: this.log,
      store: this.prepared.session.store,
      files: landingFiles(this.prepared.session.store.paths?.dir ?? null, this.deps.host.places.state, this.ctx.taskId),
      signal: this.request.signal,
      stopReason: () => this.stopReason(),
      onEvent: this.request.onEvent,
      ...(this.prepared.verify === null ? {} : { verify: (dir: string) => this.verifyMerged(dir) }),
    });
    switch (end.kind) {
      case 'landed':
        return this.done(end.summary);
      case 'back':
        return null;
      case 'reject':
        return this.reject(end.error, this.state.iteration);
      case 'stop':
        return this.stop(end.reason);
    }
  }

  /** The task's verify check on the merged result of a `merge` landing, in the scratch worktree `dir`. */
  private async verifyMerged(dir: string): Promise<VerifyResult> {
    const check = this.prepared.verify;
    if (check === null) return { passed: true };
    const result = await runVerifyCheck(
      check,
      dir,
      this.deps.env,
      this.deps.config,
      { signal: this.request.signal, ...(this.request.kill === undefined ? {} : { kill: this.request.kill }) },
      this.ctx.processes,
    );
    this.log.info(
      { event: 'iteration.verified', check: check.name, exitCode: result.exitCode, passed: result.passed },
      `verify check ${check.name} ${result.passed ? 'passed' : 'failed'} on the merged result`,
    );
    return result.passed ? { passed: true } : { passed: false, output: `${result.summary}\n${result.outputTail}` };
  }

  private async done(landing?: string): Promise<TaskRunResult> {
    await this.checkpointDurable();
    await this.removeHarnessRecord();
    await this.follow();
    const loop = checkpointData(this.checkpointKeys('done', undefined, { exitReason: 'completed' }));
    const facts = landing === undefined ? this.facts() : { ...this.facts(), landing };
    return this.endings().done(
      this.target(),
      loop,
      facts,
      this.endingDeps(),
      this.deps.config.loop.tickChecklist,
      this.review,
    );
  }

  private async reject(error: WiggumError, failedIteration = this.state.iteration + 1): Promise<TaskRunResult> {
    await this.checkpointDurable();
    await this.removeHarnessRecord();
    const { code, message: reason } = error;
    await this.follow();
    const lastRecord = this.history.at(-1);
    const { completedSteps, currentStep } = this.steps();
    const loop = checkpointData(this.checkpointKeys('rejected', lastRecord, { exitReason: code }));
    return this.endings().rejected(
      this.target(),
      loop,
      {
        ...this.facts(),
        code,
        reason,
        failedIteration,
        errorDetail: this.lastStderr.split('\n').slice(-30).join('\n') || reason,
        errorChain: isAgentReported(code)
          ? null
          : describeErrorChain(error, secretValues(this.deps.env, this.prepared.harness.env)),
        checkpoint: {
          completed_steps: completedSteps,
          current_step: currentStep,
          state_data: { attempt: this.state.attempt, no_progress: this.state.noProgressStreak },
        },
        logFile:
          lastRecord?.logFile === undefined
            ? null
            : relative(
                this.deps.host.places.root,
                throughRunLink(
                  lastRecord.logFile,
                  this.prepared.session.store.paths?.dir ?? '',
                  this.prepared.session.runDir,
                ),
              ),
      },
      this.endingDeps(),
    );
  }

  /** The agent asked a person: the question goes into the file, and the file to Blocked/ (ending.ts). */
  private async block(question: AskedText, record: IterationRecord): Promise<TaskRunResult> {
    await this.checkpointDurable();
    await this.removeHarnessRecord();
    await this.follow();
    const loop = checkpointData(this.checkpointKeys('blocked', record));
    return this.endings().blocked(
      this.target(),
      loop,
      {
        taskId: this.ctx.taskId,
        iteration: record.iteration,
        askedAt: record.endedAt,
        text: question.text,
        length: question.length,
      },
      this.endingDeps(),
    );
  }

  private async stop(reason: StopReason): Promise<TaskRunResult> {
    await this.checkpointDurable();
    await this.removeHarnessRecord();
    await this.follow();
    // The ending sets the status (stopped or interrupted) and follows a file moved out of its folder.
    const loop = checkpointData(this.checkpointKeys('interrupted'));
    return this.endings().stopped(this.target(), loop, reason, this.state.iteration, this.endingDeps());
  }
}

/**
 * The error a rejecting decision ends the task with: the one raised where the failure happened
 * (memory that no longer parses, the total time running out mid-run) when the outcome carries it,
 * else one raised here with the decision's code and reason.
 */
function rejection(action: Extract<NextAction, { kind: 'reject' }>, outcome: IterationOutcome): WiggumError {
  const raised = outcome.kind === 'hard' ? outcome.error : undefined;
  if (raised instanceof WiggumError && raised.code === action.code && raised.message === action.reason) return raised;
  return new WiggumError(action.code, action.reason, raised === undefined ? {} : { cause: raised });
}
