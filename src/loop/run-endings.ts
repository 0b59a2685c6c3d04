import { rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { WiggumError } from '../errors.js';
import type { VerifyResult } from '../git/land-merge.js';
import type { IterationRecord } from '../memory/history.js';
import { throughRunLink } from '../memory/run-link.js';
import { checkpointData } from './checkpoint.js';
import type { NextAction } from './decide.js';
import { describeErrorChain } from './error-chain.js';
import { runMask } from './request.js';
import type { TaskRunResult } from './events.js';
import { landingFiles } from './land-task.js';
import { landCompleteTask } from './landing-loop.js';
import type { LoopRun } from './loop-run.js';
import type { IterationOutcome, StopReason } from './outcome.js';
import type { AskedText } from './question.js';
import { isAgentReported } from './reports.js';
import { confineCheck, taskSandboxFolder } from './sandbox-run.js';
import { runVerifyCheck } from './verify.js';

// How a run ends its task, through its host's endings (run-host.ts RunReports): each waits for the
// checkpoints written so far, removes the harness record, follows a renamed file, then ends it.

async function settled(run: LoopRun): Promise<void> {
  await run.checkpoints.durable();
  await run.removeHarnessRecord();
  await run.follow();
}

/**
 * The task is complete: a task in its own worktree lands its branch first (landing-loop.ts) and
 * is done only once it has; null when the landing sent it back to the loop.
 */
export async function complete(run: LoopRun): Promise<TaskRunResult | null> {
  const worktree = run.prepared.worktree;
  if (worktree === null) return done(run);
  await run.checkpoints.durable();
  await run.removeHarnessRecord();
  const { prepared, deps, request } = run;
  const end = await landCompleteTask({
    taskId: run.taskId,
    title: run.ctx.title,
    prepared: { ...prepared, worktree },
    config: deps.config,
    clock: deps.clock,
    random: deps.random,
    log: run.log,
    store: prepared.session.store,
    files: landingFiles(prepared.session.store.paths?.dir ?? null, deps.host.places.state, run.taskId),
    signal: request.signal,
    stopReason: () => run.stopReason(),
    onEvent: request.onEvent,
    ...(prepared.verify === null ? {} : { verify: (dir: string) => verifyMerged(run, dir) }),
  });
  switch (end.kind) {
    case 'landed':
      return done(run, end.summary);
    case 'back':
      return null;
    case 'reject':
      return reject(run, end.error, run.state.iteration);
    case 'stop':
      return stop(run, end.reason);
  }
}

/** The task's verify check on the merged result of a `merge` landing, in the scratch worktree `dir`. */
async function verifyMerged(run: LoopRun, dir: string): Promise<VerifyResult> {
  const check = run.prepared.verify;
  if (check === null) return { passed: true };
  const { request, deps } = run;
  // Confined as the iteration's check is (the merged result holds the agent's code, which a check
  // such as a test suite runs): in the landing's scratch worktree, whose git it has read-only.
  const merged = { ...run.ctx, workdir: dir, git: false, worktree: null };
  const result = await runVerifyCheck(
    check,
    dir,
    deps.env,
    deps.config,
    { signal: request.signal, ...(request.kill === undefined ? {} : { kill: request.kill }) },
    run.ctx.processes,
    confineCheck(merged, check.name),
  );
  run.log.info(
    { event: 'iteration.verified', check: check.name, exitCode: result.exitCode, passed: result.passed },
    `verify check ${check.name} ${result.passed ? 'passed' : 'failed'} on the merged result`,
  );
  return result.passed ? { passed: true } : { passed: false, output: `${result.summary}\n${result.outputTail}` };
}

async function done(run: LoopRun, landing?: string): Promise<TaskRunResult> {
  await settled(run);
  const loop = checkpointData(run.checkpointKeys('done', undefined, { exitReason: 'completed' }));
  const facts = landing === undefined ? run.facts() : { ...run.facts(), landing };
  const tick = run.deps.config.loop.tickChecklist;
  const ended = await run.deps.host.reports.endings.done(run.target(), loop, facts, run.endingDeps(), tick, run.review);
  if (ended.status === 'done' && ended.review !== true) await removeSandboxFolder(run);
  return ended;
}

/**
 * A task in Done/ needs its confined runs' folder (`.wiggum/sandbox/<task>/`: the memory copies)
 * no more: its memory is in the session. Kept for one that may run again (Rejected/, Blocked/,
 * Review/), where the agent's own notes there carry over. A folder that cannot go is said, not fatal.
 */
async function removeSandboxFolder(run: LoopRun): Promise<void> {
  const folder = taskSandboxFolder(run.deps.host.places.state, run.taskId);
  await rm(folder, { recursive: true, force: true }).catch((error: unknown) =>
    run.log.warn({ event: 'sandbox.folder-kept', folder, err: error }, `could not remove ${folder}; remove it by hand`),
  );
}

export async function reject(
  run: LoopRun,
  error: WiggumError,
  failedIteration = run.state.iteration + 1,
): Promise<TaskRunResult> {
  await settled(run);
  const { code, message: reason } = error;
  const lastRecord = run.history.at(-1);
  const { completedSteps, currentStep } = run.steps();
  const loop = checkpointData(run.checkpointKeys('rejected', lastRecord, { exitReason: code }));
  const store = run.prepared.session.store;
  return run.deps.host.reports.endings.rejected(
    run.target(),
    loop,
    {
      ...run.facts(),
      code,
      reason,
      failedIteration,
      errorDetail: run.lastStderr.split('\n').slice(-30).join('\n') || reason,
      errorChain: isAgentReported(code) ? null : describeErrorChain(error, runMask(run.deps).values),
      checkpoint: {
        completed_steps: completedSteps,
        current_step: currentStep,
        state_data: { attempt: run.state.attempt, no_progress: run.state.noProgressStreak },
      },
      logFile:
        lastRecord?.logFile === undefined
          ? null
          : relative(
              run.deps.host.places.root,
              throughRunLink(lastRecord.logFile, store.paths?.dir ?? '', run.prepared.session.runDir),
            ),
    },
    run.endingDeps(),
  );
}

/** The agent asked a person: the question goes into the file, and the file to Blocked/ (ending.ts). */
export async function block(run: LoopRun, question: AskedText, record: IterationRecord): Promise<TaskRunResult> {
  await settled(run);
  const loop = checkpointData(run.checkpointKeys('blocked', record));
  return run.deps.host.reports.endings.blocked(
    run.target(),
    loop,
    {
      taskId: run.taskId,
      iteration: record.iteration,
      askedAt: record.endedAt,
      text: question.text,
      length: question.length,
    },
    run.endingDeps(),
  );
}

export async function stop(run: LoopRun, reason: StopReason): Promise<TaskRunResult> {
  await settled(run);
  // The ending sets the status (stopped or interrupted) and follows a file moved out of its folder.
  const loop = checkpointData(run.checkpointKeys('interrupted'));
  return run.deps.host.reports.endings.stopped(run.target(), loop, reason, run.state.iteration, run.endingDeps());
}

/**
 * The error a rejecting decision ends the task with: the one raised where the failure happened
 * (memory that no longer parses, the total time running out mid-run) when the outcome carries it,
 * else one raised here with the decision's code and reason.
 */
export function rejection(action: Extract<NextAction, { kind: 'reject' }>, outcome: IterationOutcome): WiggumError {
  const raised = outcome.kind === 'hard' ? outcome.error : undefined;
  if (raised instanceof WiggumError && raised.code === action.code && raised.message === action.reason) return raised;
  return new WiggumError(action.code, action.reason, raised === undefined ? {} : { cause: raised });
}
