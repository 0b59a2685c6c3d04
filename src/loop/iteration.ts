import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { Budget, CheckDefinition, HarnessDefinition, WiggumConfig } from '../config/config.js';
import { WiggumError, isWiggumError } from '../errors.js';
import { changesSince, gitState } from '../git/changes.js';
import type { GitState } from '../git/changes.js';
import { commitLeftovers } from '../git/git.js';
import type { AgentReport, HarnessDriver } from '../harness/drivers/driver.js';
import { processFailure } from '../harness/drivers/driver.js';
import { harnessEnvironment } from '../harness/environment.js';
import { expandArgs } from '../harness/placeholders.js';
import { OutputTail } from '../harness/output-tail.js';
import type { ProcessHost } from '../harness/process-host.js';
import { retriableFailure } from '../harness/retriable-errors.js';
import { runProcess } from '../harness/run-process.js';
import type { ProcessResult } from '../harness/run-process.js';
import type { Logger } from '../log/logger.js';
import { agentFiles } from '../memory/agent-files.js';
import type { IterationRecord } from '../memory/history.js';
import { storySummary } from '../memory/prd.js';
import type { Prd } from '../memory/prd.js';
import type { MemoryStore } from '../memory/store.js';
import { isoSeconds } from '../time/clock.js';
import type { Clock } from '../time/clock.js';
import type { LoopState } from './decide.js';
import type { IterationOutcome } from './outcome.js';
import { stopReasonOf } from './outcome.js';
import { PromiseScanner, containsPromise } from './promise.js';
import { QuestionScanner, askingOf, questionInMessage } from './question.js';
import type { Asking } from './question.js';
import { readQuestionFile } from './question-file.js';
import { questionRounds, withoutQuestionSections } from '../task/question-section.js';
import { buildPrompt } from './prompt.js';
import { runVerifyCheck } from './verify.js';
import { iterationDeadline } from './iteration-deadline.js';
import { plural } from '../plural.js';

/** Everything about a task that stays fixed while its loop runs. */
export interface IterationContext {
  taskId: string;
  taskFile: string;
  title: string;
  workdir: string;
  harness: HarnessDefinition;
  driver: HarnessDriver;
  promise: string;
  verify: CheckDefinition | null;
  /** The task's budgets: a run is stopped when it would cross max_duration. */
  budget: Budget;
  branch: string | null;
  /** The workdir is a git repository and git is enabled. */
  git: boolean;
  /** The workdir is wiggum's own worktree of the task: its index is wiggum's to refresh (git.ts GitOptions). */
  ownWorktree: boolean;
  store: MemoryStore;
  config: WiggumConfig;
  clock: Clock;
  /** Spawning, signals and their waits, beside the clock. */
  processes: ProcessHost;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** Live output goes here (`--no-stream`: null). */
  stream: Writable | null;
  /** Aborted with a StopReason to stop the harness at once. */
  signal: AbortSignal;
  /** Aborted to kill the harness's process group now (SIGKILL), without the rest of its stop grace. */
  kill?: AbortSignal;
  /**
   * Called with the harness pid and the run's marker right after spawn, so that a crash of wiggum
   * can be followed by killing its group and the background jobs that left it.
   */
  onSpawn: (pid: number, marker: string) => void;
  /** The run's marker just before spawn (see ProcessSpec.onMarker). */
  onMarker: (marker: string) => void;
}

export interface IterationRun {
  outcome: IterationOutcome;
  /** The repository after the run, which the next iteration can start from. */
  gitState: GitState | null;
  /** The history line, without the decision's `action` and `nextState`, which the caller adds. */
  record: Omit<IterationRecord, 'action' | 'nextState'>;
  prd: Prd;
  /** The last lines of output as displayed, for reports. */
  outputTail: string;
  stderrTail: string;
}

/**
 * One iteration: reload memory and the task body, build the prompt, run the
 * harness, and read what came of it. Deciding and persisting are the caller's. `previousGit` is the
 * repository as the previous iteration left it, if nothing can have happened since.
 */
export async function runIteration(
  ctx: IterationContext,
  state: LoopState,
  body: string,
  previousGit: GitState | null = null,
): Promise<IterationRun> {
  const iteration = state.iteration + 1;
  const prdBefore = await ctx.store.loadPrd();
  const storiesBefore = storySummary(prdBefore);
  const context = await ctx.store.loadContext();
  const files = await agentFiles(ctx.store, ctx.taskId);
  const progressBefore = hash(await ctx.store.loadProgress());

  const prompt = buildPrompt({
    iteration,
    maxIterations: state.maxIterations,
    promise: ctx.promise,
    taskId: ctx.taskId,
    title: ctx.title,
    body: withoutQuestionSections(body),
    answers: questionRounds(body),
    paths: files === null ? null : { prd: files.prd, progress: files.progress, sessionDir: files.dir },
    stories: {
      passing: storiesBefore.passing,
      total: storiesBefore.total,
      next: storiesBefore.nextStory === null ? null : { id: storiesBefore.nextStory.id },
    },
    context,
    refusal: state.refusal,
  });

  // The state the previous iteration ended with, when the loop went straight on: one git process less.
  const gitOptions = { optionalLocks: ctx.ownWorktree };
  const gitBefore = ctx.git ? (previousGit ?? (await gitState(ctx.workdir, gitOptions))) : null;
  const values = {
    workdir: ctx.workdir,
    session_dir: files?.dir ?? '',
    prd: files?.prd ?? '',
    progress: files?.progress ?? '',
    context: files?.context ?? '',
    task_id: ctx.taskId,
    iteration: String(iteration),
    promise: ctx.promise,
  };
  const reader = ctx.driver.createReader();
  // What the agent said, as shown live (structured drivers render their JSON events readably):
  // the reports quote its end rather than raw JSON.
  const shown = new OutputTail(ctx.config.harness.tailBytes);
  const scanner = new PromiseScanner(ctx.promise, prompt);
  const questions = new QuestionScanner(prompt);
  // Where the agent may write a question instead of printing it: one file per run, read after it.
  const questionFile = files === null ? '' : join(files.dir, `question.${iteration}.${state.attempt}.txt`);
  let fromFile: Awaited<ReturnType<typeof readQuestionFile>> = null;
  const logFile = ctx.store.logFile(iteration, state.attempt);
  // Ends the run at once when the agent reports what no waiting fixes (a refused key it would
  // otherwise retry for minutes); a stop request of the user aborts it too.
  const giveUp = new AbortController();
  const signal = AbortSignal.any([ctx.signal, giveUp.signal]);
  // A run may not take the task past its total time or its max_duration: it is stopped when the
  // nearer of the two runs out, not only found over it once the run ends (iteration-deadline.ts).
  const deadline = iterationDeadline({
    perIterationMs: ctx.config.loop.perIterationTimeoutMs,
    totalMs: ctx.config.loop.totalTimeoutMs,
    activeMs: state.activeMs,
    maxDurationMs: ctx.budget.maxDurationMs,
    agentMs: state.spent.agentMs,
  });
  const startedAtMs = ctx.clock.now();
  let result: ProcessResult;
  try {
    result = await runProcess(
      {
        command: ctx.harness.command,
        args: expandArgs(ctx.harness.args, values),
        cwd: ctx.workdir,
        env: harnessEnvironment(ctx.env, ctx.config.harness.envAllowlist, {
          ...ctx.harness.env,
          WIGGUM_TASK_ID: ctx.taskId,
          WIGGUM_TASK_FILE: ctx.taskFile,
          WIGGUM_ITERATION: String(iteration),
          WIGGUM_MAX_ITERATIONS: String(state.maxIterations),
          WIGGUM_ATTEMPT: String(state.attempt),
          WIGGUM_WORKDIR: ctx.workdir,
          WIGGUM_SESSION_DIR: values.session_dir,
          WIGGUM_PRD: values.prd,
          WIGGUM_PROGRESS: values.progress,
          WIGGUM_CONTEXT: values.context,
          WIGGUM_PROMISE: ctx.promise,
          WIGGUM_QUESTION: questionFile,
        }),
        stdin: prompt,
        timeoutMs: deadline.timeoutMs,
        idleTimeoutMs: ctx.config.loop.idleTimeoutMs,
        stopGraceMs: ctx.config.harness.stopGraceMs,
        logFile,
        logMaxBytes: ctx.config.harness.logMaxBytes,
        tailBytes: ctx.config.harness.tailBytes,
        configKey: `harnesses.${ctx.harness.name}.command`,
        signal,
        ...(ctx.kill === undefined ? {} : { kill: ctx.kill }),
        onSpawn: ctx.onSpawn,
        onMarker: ctx.onMarker,
        onOutput: (chunk, stream) => {
          reader.push(chunk, stream);
          if (!giveUp.signal.aborted && reader.urgentFailure() !== null)
            giveUp.abort(new Error('the agent reported a failure no retry fixes'));
          if (stream === 'stdout') {
            const text = chunk.toString('utf8');
            scanner.push(text);
            questions.push(text);
          }
          const text = reader.display(chunk, stream);
          shown.push(Buffer.from(text));
          if (ctx.stream !== null) ctx.stream.write(text);
        },
      },
      ctx.processes,
    );
  } finally {
    // Before absorb: a store without a folder of its own removes the scratch folder there.
    fromFile = await readQuestionFile(questionFile).catch((error: unknown) => {
      ctx.logger.warn(
        { event: 'iteration.question-unread', file: questionFile, err: error },
        `could not read the agent's question file ${questionFile}; the run counts as one without a question`,
      );
      return null;
    });
    await files
      ?.absorb()
      .catch((error: unknown) =>
        ctx.logger.warn({ event: 'iteration.memory-unread', err: error }, 'could not read the agent memory back'),
      );
  }
  const report = reader.finish(result);

  if (ctx.git && ctx.config.git.autoCommit && !result.stopped) {
    await commitLeftovers(ctx.workdir, `wiggum: iteration ${iteration} leftovers (${ctx.taskId})`).catch(
      (error: unknown) =>
        ctx.logger.warn(
          { event: 'iteration.auto-commit-failed', iteration, err: error },
          'auto-commit of leftovers failed',
        ),
    );
  }
  const gitAfter = gitBefore === null ? null : await changesSince(ctx.workdir, gitBefore, gitOptions).catch(() => null);
  const gitSummary = gitAfter?.summary ?? null;

  let prd = prdBefore;
  let prdError: Error | null = null;
  try {
    prd = await ctx.store.loadPrd();
  } catch (error) {
    if (!isWiggumError(error)) throw error;
    prdError = error;
  }
  const stories = storySummary(prd);
  const progressed =
    stories.passing > storiesBefore.passing ||
    JSON.stringify(prd) !== JSON.stringify(prdBefore) ||
    hash(await ctx.store.loadProgress()) !== progressBefore ||
    gitChanged(gitBefore, gitAfter?.state ?? null);

  const completionFound =
    report.finalMessage !== null ? containsPromise(report.finalMessage, ctx.promise) : scanner.detected;
  const asking = askingOf(
    report.finalMessage !== null ? questionInMessage(report.finalMessage) : questions.question,
    fromFile,
  );
  if (asking.kind === 'empty')
    ctx.logger.warn(
      { event: 'iteration.question-empty', iteration, source: asking.source },
      `the agent asked an empty question (${asking.source === 'file' ? 'an empty $WIGGUM_QUESTION file' : '<question></question>'}): not a block; iteration ${iteration} counts as a normal one`,
    );
  const outcome: IterationOutcome =
    prdError !== null
      ? { kind: 'hard', code: 'E_MEMORY_CORRUPT', message: prdError.message, error: prdError }
      : result.timedOut && deadline.cause === 'total'
        ? totalTimeout(ctx.config.loop.totalTimeoutMs, iteration)
        : result.timedOut && deadline.cause === 'budget'
          ? {
              kind: 'hard',
              code: 'E_BUDGET',
              message: `the agent used up the task's max_duration (${Math.round(ctx.budget.maxDurationMs / 1000)} s of agent time) and was stopped mid-run`,
            }
          : await classify(ctx, result, report, completionFound, stories, progressed, asking);

  const endedAtMs = ctx.clock.now();
  const record: IterationRun['record'] = {
    iteration,
    attempt: state.attempt,
    startedAt: isoSeconds(startedAtMs),
    endedAt: isoSeconds(endedAtMs),
    durationMs: result.durationMs,
    harness: ctx.harness.name,
    exitCode: result.exitCode,
    signal: result.signal,
    outcome: outcomeName(outcome),
    completionFound,
    storiesPassing: stories.passing,
    storiesTotal: stories.total,
  };
  if (outcome.kind === 'claimed') {
    record.completionAccepted = outcome.accepted;
    if (outcome.refusal !== null) record.refusal = outcome.refusal;
  }
  if (gitSummary !== null) record.git = gitSummary;
  if (report.usage !== undefined) record.usage = report.usage;
  if (result.resources !== null) record.resources = result.resources;
  if (result.straysKilled > 0) {
    ctx.logger.info(
      { event: 'iteration.strays-ended', iteration, strays: result.straysKilled },
      `ended ${plural(result.straysKilled, 'background process', 'background processes')} the agent left running after its run`,
    );
  }
  if (report.agentSessionId !== undefined) record.agentSessionId = report.agentSessionId;
  if (outcome.kind === 'transient' || outcome.kind === 'hard' || outcome.kind === 'usage-limit') {
    record.error = {
      code: outcome.kind === 'usage-limit' ? 'E_HARNESS_USAGE_LIMIT' : outcome.code,
      message: outcome.message,
    };
  }
  if (logFile !== null) record.logFile = logFile;
  if (outcome.kind === 'asked')
    record.question = {
      text: outcome.question.text,
      length: outcome.question.length,
      source: asking.kind === 'asked' ? asking.source : 'message',
    };
  return {
    outcome,
    gitState: gitAfter?.state ?? null,
    record,
    prd,
    outputTail: shown.text(),
    stderrTail: result.stderrTail,
  };
}

/** The task's total time ran out while the agent worked: it was stopped, and the task ends. */
function totalTimeout(totalMs: number, iteration: number): IterationOutcome {
  const message = `the task used its total time (${Math.round(totalMs / 1000)} s, persistence_loop.timeout.total) during iteration ${iteration}, and the agent was stopped mid-run`;
  return {
    kind: 'hard',
    code: 'E_TOTAL_TIMEOUT',
    message,
    error: new WiggumError('E_TOTAL_TIMEOUT', message, { details: { totalMs, iteration } }),
  };
}

async function classify(
  ctx: IterationContext,
  result: ProcessResult,
  report: AgentReport,
  completionFound: boolean,
  stories: ReturnType<typeof storySummary>,
  progressed: boolean,
  asking: Asking,
): Promise<IterationOutcome> {
  if (result.stopped && ctx.signal.aborted) return { kind: 'stopped', reason: stopReasonOf(ctx.signal), progressed };
  const failure =
    processFailure(result, ctx.driver.installHint, {
      perIterationMs: ctx.config.loop.perIterationTimeoutMs,
      idleMs: ctx.config.loop.idleTimeoutMs,
    }) ??
    report.failure ??
    retriableFailure(result, ctx.config.loop.retry.retriable);
  if (failure !== null) {
    if (failure.kind === 'usage-limit')
      return { kind: 'usage-limit', resetAtMs: failure.resetAtMs ?? null, message: failure.message };
    // A harness that could not be started: the spawn's own error (ENOENT, EACCES…) goes into the report's stack.
    if (failure.kind === 'hard' && result.spawnError !== null)
      return { kind: 'hard', code: failure.code, message: failure.message, error: result.spawnError };
    return { kind: failure.kind, code: failure.code, message: failure.message };
  }
  // A question beats a promise in the same reply: an agent that still asks is not done, and a task
  // in Done/ that was not done is the worst ending (docs/decisions.md).
  if (asking.kind === 'asked') return { kind: 'asked', question: asking.question };
  if (completionFound) {
    const refusal = await completionRefusal(ctx, stories);
    return { kind: 'claimed', accepted: refusal === null, refusal, progressed, exitCode: result.exitCode };
  }
  if (result.exitCode === 0) return { kind: 'ok', progressed };
  return { kind: 'nonzero-exit', exitCode: result.exitCode, signal: result.signal, progressed };
}

/** Why a completion claim cannot be accepted yet, or null: every story passes and verify exits 0. */
async function completionRefusal(
  ctx: IterationContext,
  stories: ReturnType<typeof storySummary>,
): Promise<string | null> {
  if (stories.passing < stories.total) {
    const next = stories.nextStory;
    return (
      `You printed the completion promise, but only ${stories.passing} of ${stories.total === 1 ? '1 story has' : `${stories.total} stories have`} "passes": true in prd.json` +
      (next === null ? '.' : `; the next one is ${next.id} ${next.title}.`)
    );
  }
  if (ctx.verify === null) return null;
  const check = await runVerifyCheck(
    ctx.verify,
    ctx.workdir,
    ctx.env,
    ctx.config,
    { signal: ctx.signal, ...(ctx.kill === undefined ? {} : { kill: ctx.kill }) },
    ctx.processes,
  );
  ctx.logger.info(
    { event: 'iteration.verified', check: ctx.verify.name, exitCode: check.exitCode, passed: check.passed },
    `verify check ${ctx.verify.name} ${check.passed ? 'passed' : 'failed'}`,
  );
  return check.passed
    ? null
    : `Every story passes, but the verify check "${ctx.verify.name}" failed (${check.summary}):\n${check.outputTail}`;
}

function outcomeName(outcome: IterationOutcome): string {
  if (outcome.kind === 'claimed') return outcome.accepted ? 'complete' : 'refused';
  if (outcome.kind === 'ok') return 'continue';
  return outcome.kind;
}

/** A commit, or a different set of uncommitted files, is progress. */
function gitChanged(before: GitState | null, after: GitState | null): boolean {
  if (before === null || after === null) return false;
  return before.head !== after.head || before.dirty.join('\0') !== after.dirty.join('\0');
}

function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
