import { changesSince, gitState } from '../git/changes.js';
import type { GitState } from '../git/changes.js';
import { commitLeftovers } from '../git/git.js';
import { processFailure } from '../harness/drivers/driver.js';
import { retriableFailure } from '../harness/retriable-errors.js';
import { storySummary } from '../memory/prd.js';
import type { Prd } from '../memory/prd.js';
import { classify } from './classify.js';
import type { LoopState } from './decide.js';
import { runHarness } from './harness-run.js';
import type { HarnessRun } from './harness-run.js';
import { hash, iterationInput } from './iteration-input.js';
import type { IterationInput } from './iteration-input.js';
import { iterationRecord } from './iteration-record.js';
import { loadBoundedMemory } from './memory-bounds.js';
import type { IterationOutcome } from './outcome.js';
import { stopReasonOf } from './outcome.js';
import { containsPromise } from './promise.js';
import { askingOf, questionInMessage } from './question.js';
import { confineCheck } from './sandbox-run.js';
import { runVerifyCheck } from './verify.js';

export type { IterationContext, IterationRun } from './iteration-context.js';
import type { IterationContext, IterationRun } from './iteration-context.js';

/**
 * One iteration: reload memory and the task body, build the prompt (iteration-input.ts), run the
 * harness (harness-run.ts), and read what came of it (classify.ts, iteration-record.ts). Deciding
 * and persisting are the caller's. `previousGit` is the repository as the previous iteration left
 * it, if nothing can have happened since.
 */
export async function runIteration(
  ctx: IterationContext,
  state: LoopState,
  body: string,
  previousGit: GitState | null = null,
): Promise<IterationRun> {
  const input = await iterationInput(ctx, state, body);
  // The state the previous iteration ended with, when the loop went straight on: one git process less.
  const gitOptions = { optionalLocks: ctx.ownWorktree };
  const gitBefore = ctx.git ? (previousGit ?? (await gitState(ctx.workdir, gitOptions))) : null;
  const startedAtMs = ctx.clock.now();
  const run = await runHarness(ctx, state, input);
  if (ctx.git && ctx.config.git.autoCommit && !run.result.stopped) await commitAfter(ctx, input.iteration);
  const gitAfter = gitBefore === null ? null : await changesSince(ctx.workdir, gitBefore, gitOptions).catch(() => null);
  const memory = await memoryAfter(ctx, input);
  const progressed = memory.progressed || gitChanged(gitBefore, gitAfter?.state ?? null);
  const outcome = await outcomeOf(ctx, input, run, memory, progressed);
  const record = iterationRecord(ctx, {
    iteration: input.iteration,
    attempt: state.attempt,
    startedAtMs,
    endedAtMs: ctx.clock.now(),
    run,
    outcome,
    asking: askingOfRun(run),
    completionFound: completionFoundIn(ctx, run),
    stories: memory.stories,
    git: gitAfter?.summary ?? null,
    logFile: input.logFile,
    sandbox: input.confinement.name,
  });
  return {
    outcome,
    gitState: gitAfter?.state ?? null,
    record,
    prd: memory.prd,
    outputTail: run.shown,
    stderrTail: run.result.stderrTail,
  };
}

async function commitAfter(ctx: IterationContext, iteration: number): Promise<void> {
  await commitLeftovers(ctx.workdir, `wiggum: iteration ${iteration} leftovers (${ctx.taskId})`).catch(
    (error: unknown) =>
      ctx.logger.warn(
        { event: 'iteration.auto-commit-failed', iteration, err: error },
        'auto-commit of leftovers failed',
      ),
  );
}

interface MemoryAfter {
  prd: Prd;
  prdError: Error | null;
  stories: ReturnType<typeof storySummary>;
  /** The stories, prd.json or progress.txt changed. */
  progressed: boolean;
}

/** The agent's memory after its run: a prd.json that no longer parses, or a file over its limit, is kept as the error it is. */
async function memoryAfter(ctx: IterationContext, input: IterationInput): Promise<MemoryAfter> {
  const before = { prd: input.prdBefore, progressBytes: input.progressBytesBefore };
  const read = await loadBoundedMemory(ctx, before, input.files?.prdError() ?? null);
  const prd = read.prd ?? input.prdBefore;
  const stories = storySummary(prd);
  const progressed =
    stories.passing > input.storiesBefore.passing ||
    JSON.stringify(prd) !== JSON.stringify(input.prdBefore) ||
    (read.progress !== null && hash(read.progress) !== input.progressBefore);
  return { prd, prdError: read.error, stories, progressed };
}

function completionFoundIn(ctx: IterationContext, run: HarnessRun): boolean {
  return run.report.finalMessage !== null ? containsPromise(run.report.finalMessage, ctx.promise) : run.promiseSeen;
}

function askingOfRun(run: HarnessRun): ReturnType<typeof askingOf> {
  return askingOf(
    run.report.finalMessage !== null ? questionInMessage(run.report.finalMessage) : run.printedQuestion,
    run.fileQuestion,
  );
}

/** What the run came to (classify.ts); a completion claim is checked here against the stories and verify. */
async function outcomeOf(
  ctx: IterationContext,
  input: IterationInput,
  run: HarnessRun,
  memory: MemoryAfter,
  progressed: boolean,
): Promise<IterationOutcome> {
  const { result } = run;
  const asking = askingOfRun(run);
  if (asking.kind === 'empty')
    ctx.logger.warn(
      { event: 'iteration.question-empty', iteration: input.iteration, source: asking.source },
      `the agent asked an empty question (${asking.source === 'file' ? 'an empty $WIGGUM_QUESTION file' : '<question></question>'}): not a block; iteration ${input.iteration} counts as a normal one`,
    );
  const classified = classify({
    result,
    failure:
      processFailure(result, ctx.driver.installHint, {
        perIterationMs: ctx.config.loop.perIterationTimeoutMs,
        idleMs: ctx.config.loop.idleTimeoutMs,
      }) ??
      run.report.failure ??
      retriableFailure(result, ctx.config.loop.retry.retriable),
    stopped: ctx.signal.aborted ? stopReasonOf(ctx.signal) : null,
    deadline: run.deadline.cause,
    prdError: memory.prdError,
    limitHit: run.limitHit,
    completionFound: completionFoundIn(ctx, run),
    asking,
    progressed,
    iteration: input.iteration,
    totalTimeoutMs: ctx.config.loop.totalTimeoutMs,
    maxDurationMs: ctx.budget.maxDurationMs,
  });
  if (classified.kind !== 'claim') return classified;
  const refusal = await completionRefusal(ctx, memory.stories);
  return { kind: 'claimed', accepted: refusal === null, refusal, progressed, exitCode: classified.exitCode };
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
    confineCheck(ctx, ctx.verify.name),
  );
  ctx.logger.info(
    { event: 'iteration.verified', check: ctx.verify.name, exitCode: check.exitCode, passed: check.passed },
    `verify check ${ctx.verify.name} ${check.passed ? 'passed' : 'failed'}`,
  );
  return check.passed
    ? null
    : `Every story passes, but the verify check "${ctx.verify.name}" failed (${check.summary}):\n${check.outputTail}`;
}

/** A commit, or a different set of uncommitted files, is progress. */
function gitChanged(before: GitState | null, after: GitState | null): boolean {
  if (before === null || after === null) return false;
  return before.head !== after.head || before.dirty.join('\0') !== after.dirty.join('\0');
}
