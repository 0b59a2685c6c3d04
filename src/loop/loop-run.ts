import { existsSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { accountOf } from '../config/config.js';
import { clearHarnessRecord } from '../harness/pid-record.js';
import type { Logger } from '../log/logger.js';
import type { IterationRecord } from '../memory/history.js';
import { storySummary } from '../memory/prd.js';
import type { Prd, UserStory } from '../memory/prd.js';
import type { GitState } from '../git/changes.js';
import { answerState } from '../task/question-section.js';
import type { Task } from '../task/parse.js';
import { needsReview } from '../task/review.js';
import type { LoopStatus } from '../task/vocabulary.js';
import { isoSeconds } from '../time/clock.js';
import type { checkpointData } from './checkpoint.js';
import { CheckpointPipeline } from './checkpoint-pipeline.js';
import type { LoopState, WaitCause } from './decide.js';
import { isBlocked } from './ending.js';
import type { EndingDeps, LoopFile } from './ending.js';
import type { LoopEvent } from './events.js';
import { findRenamedTaskFile } from './follow-file.js';
import { iterationContext } from './iteration-context.js';
import type { IterationContext } from './iteration-context.js';
import type { StopReason } from './outcome.js';
import { stopReasonOf } from './outcome.js';
import type { PreparedTask } from './prepare.js';
import type { LoopFacts } from './reports.js';
import { runMask } from './request.js';
import type { RunTaskDeps, RunTaskRequest } from './request.js';
import type { ResumePlan } from './resume-plan.js';
import type { PauseBoard } from './run-host.js';
import type { TaskFileView } from './task-file-edits.js';

/**
 * One task's run as the loop's parts see it (task-loop.ts, checkpoint-pipeline.ts, run-endings.ts,
 * run-waits.ts): its state, its file as last written, what it has read and learnt, and the reads
 * every part shares. It decides nothing.
 */
export class LoopRun {
  state: LoopState;
  /** The task file; it follows a rename by the task's author (see `follow`). */
  file: string;
  lastText: string;
  body: string;
  prd: Prd | null = null;
  /** The file's own `max_iterations` when last read, to apply the user's edit of it. */
  fileMax: number | null;
  /** Stories added to the checklist during the last iteration that no iteration has worked on. */
  late: UserStory[] = [];
  lastOutput = '';
  lastStderr = '';
  /** The repository as the last iteration left it, while the loop goes straight on to the next. */
  gitState: GitState | null = null;
  /** The question and answer of a blocked task moved back answered: kept in the next history line. */
  answer: { question: string; text: string } | null;
  readonly started: string;
  /** Whether the complete task waits in Review/ for a person rather than going to Done/ (task key, else config). */
  readonly review: boolean;
  /** History lines from before the task was last sent back; kept in every checkpoint of this run. */
  readonly historyBase: number;
  readonly log: Logger;
  readonly ctx: IterationContext;
  readonly pauses: PauseBoard;
  /** The account the task's harness runs on: what its usage limits and outages pause. */
  readonly account: string;
  readonly checkpoints: CheckpointPipeline;

  constructor(
    task: Task,
    readonly prepared: PreparedTask,
    readonly history: IterationRecord[],
    readonly plan: ResumePlan,
    readonly request: RunTaskRequest,
    readonly deps: RunTaskDeps,
  ) {
    this.file = task.file;
    this.lastText = task.text;
    this.body = task.body;
    this.fileMax = task.frontmatter.max_iterations ?? null;
    this.log = deps.logger.child({ taskId: task.id });
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
    this.checkpoints = new CheckpointPipeline(this);
  }

  get taskId(): string {
    return this.ctx.taskId;
  }

  event(event: LoopEvent): void {
    this.request.onEvent?.(event);
  }

  view(): TaskFileView {
    return { body: this.body, text: this.lastText, prd: this.prd, fileMax: this.fileMax };
  }

  stopReason(): StopReason | null {
    return this.request.signal.aborted ? stopReasonOf(this.request.signal) : null;
  }

  steps(): { completedSteps: string[]; currentStep: string | null } {
    const stories = this.prd?.userStories ?? [];
    const next = this.prd === null ? null : storySummary(this.prd).nextStory;
    return {
      completedSteps: stories.filter((story) => story.passes).map((story) => story.id),
      currentStep: next?.id ?? null,
    };
  }

  checkpointKeys(
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

  endingDeps(): EndingDeps {
    const { places, taskFile } = this.deps.host;
    return { places, taskFile, logger: this.log, clock: this.deps.clock, mask: runMask(this.deps) };
  }

  target(): LoopFile {
    return { taskId: this.taskId, file: this.file, lastText: this.lastText };
  }

  facts(): LoopFacts {
    const store = this.prepared.session.store;
    return {
      taskId: this.taskId,
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
  async follow(): Promise<void> {
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

  /** The harness record is emptied after each run (no record: nothing to kill), removed when the loop ends. */
  async removeHarnessRecord(): Promise<void> {
    if (this.prepared.harnessRecord !== null)
      await clearHarnessRecord(this.prepared.harnessRecord).catch(() => undefined);
  }
}
