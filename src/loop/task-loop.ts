import { WiggumError, isWiggumError } from '../errors.js';
import { emptyHarnessRecord } from '../harness/pid-record.js';
import type { Task } from '../task/parse.js';
import { describeIterations, iterationCount } from '../task/iteration-count.js';
import { gate } from './decide.js';
import type { TaskRunResult } from './events.js';
import { runIteration } from './iteration.js';
import type { IterationRun } from './iteration.js';
import { withLateStoriesNote, withStoriesAddedDuringRun } from './late-stories.js';
import { LoopRun } from './loop-run.js';
import { withMaxIterationsEdit } from './max-iterations.js';
import type { PreparedTask } from './prepare.js';
import type { RunTaskDeps, RunTaskRequest } from './request.js';
import { resumePlan } from './resume-plan.js';
import { block, complete, reject, rejection, stop } from './run-endings.js';
import { checkpointFollows, recordIteration } from './record-iteration.js';
import type { Recorded } from './record-iteration.js';
import { holdWhileHeld, waitForAccountPause, waitOut } from './run-waits.js';
import { reloadTaskFile, storiesAddedDuringRun } from './task-file-edits.js';

/**
 * Runs the loop of a prepared task, from where its checkpoint and history say it stands
 * (resume-plan.ts): the interpreter of `gate` and `decide`, one iteration at a time. What a run is
 * and reads is `LoopRun` (loop-run.ts); its checkpoints `CheckpointPipeline`; its endings
 * run-endings.ts; its waits run-waits.ts.
 */
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
  const run = new LoopRun(task, prepared, history, plan, request, deps);
  try {
    return await loop(run);
  } finally {
    await run.checkpoints.settle();
    await run.removeHarnessRecord();
    run.pauses.forget(run.account, run.taskId);
  }
}

async function loop(run: LoopRun): Promise<TaskRunResult> {
  const ended = await start(run);
  if (ended !== null) return ended;
  for (;;) {
    const before = await beforeIteration(run);
    if (before === 'again') continue;
    if (before !== 'go') return before;
    const iterated = await iterate(run);
    if (!('outcome' in iterated)) return iterated;
    const next = await recordIteration(run, iterated);
    const result = await act(run, next, iterated);
    if (result !== null) return result;
  }
}

/** Says the run started (or resumed) and writes its first checkpoint; an ending when a crash cut a completed task short. */
async function start(run: LoopRun): Promise<TaskRunResult | null> {
  const { prepared, plan } = run;
  const store = prepared.session.store;
  if (plan.countedIteration !== null) {
    run.log.info(
      { event: 'loop.crashed-iteration-counted', iteration: plan.countedIteration },
      `iteration ${plan.countedIteration} finished before a crash that kept it from the checkpoint; counting it`,
    );
  }
  run.prd = await store.loadPrd();
  const { iteration, maxIterations } = run.state;
  run.log.info(
    {
      event: plan.resumed ? 'loop.resumed' : 'loop.started',
      iterations: iteration,
      maxIterations,
      harness: prepared.harness.name,
      workdir: prepared.workdir,
      durable: store.durable,
      session: prepared.session.sessionId,
    },
    !plan.resumed
      ? 'starting'
      : iteration === 0
        ? `starting again with its memory: ${describeIterations(iterationCount(0, maxIterations, false))}`
        : `resuming: ${describeIterations(iterationCount(iteration, maxIterations, false))}`,
  );
  run.event({
    type: 'started',
    taskId: run.taskId,
    file: run.file,
    iteration,
    maxIterations,
    resumed: plan.resumed,
    durable: store.durable,
    harness: prepared.harness.name,
    session: prepared.session.sessionId,
    ...(prepared.worktree === null
      ? {}
      : { worktree: { path: prepared.worktree.path, branch: prepared.worktree.branch } }),
  });
  // The iteration counted from the history had completed the task: a crash came between its
  // history line and the Done file. End it now rather than run the agent once more.
  if (plan.first === 'done') {
    const ended = await complete(run);
    if (ended !== null) return ended;
  }
  await run.checkpoints.write('running');
  return null;
}

/** The gate, the waits and the user's edits before an iteration: `go`, `again` (look again) or an ending. */
async function beforeIteration(run: LoopRun): Promise<'go' | 'again' | TaskRunResult> {
  const verdict = gate(run.state, { stop: run.stopReason(), nowMs: run.deps.clock.now() }, run.prepared.loop);
  if (verdict.kind === 'stop') return stop(run, verdict.reason);
  // Raised here, where the loop finds the bound reached, so its stack points at the decision.
  if (verdict.kind === 'reject')
    return reject(run, new WiggumError(verdict.code, withLateStoriesNote(verdict.reason, run.late)));
  if (verdict.warn) {
    run.state = { ...run.state, warned: true };
    run.log.warn(
      { event: 'loop.near-max-iterations', iteration: run.state.iteration + 1, maxIterations: run.state.maxIterations },
      `approaching max iterations: iteration ${run.state.iteration + 1} of ${run.state.maxIterations}`,
    );
  }
  if ((await waitForAccountPause(run)) || (await holdWhileHeld(run))) {
    run.gitState = null;
    return 'again';
  }
  await run.follow();
  // While the last checkpoint is being written, the file may show the text before or after its
  // rename: the user's edits are read either way, and the checkpoint sets the text it wrote.
  const writing = run.checkpoints.behindTheAgent;
  const view = await reloadTaskFile(run.file, run.view(), run.ctx.store, run.log);
  if (view === null) return stop(run, 'task-gone');
  const bound = withMaxIterationsEdit(
    run.state,
    {
      fileBefore: run.fileMax,
      fileNow: view.fileMax,
      override: run.request.overrides?.maxIterations,
      configDefault: run.deps.config.loop.maxIterations,
    },
    run.log,
  );
  ({ body: run.body, prd: run.prd, fileMax: run.fileMax } = view);
  if (!writing) run.lastText = view.text;
  // The user's edit of max_iterations takes effect before this iteration, which the gate checks again.
  if (bound !== run.state) {
    run.state = bound;
    return 'again';
  }
  return 'go';
}

/** Runs one iteration and reads back what the user added while it ran; an ending when memory no longer parses. */
async function iterate(run: LoopRun): Promise<IterationRun | TaskRunResult> {
  run.event({
    type: 'iteration',
    taskId: run.taskId,
    iteration: run.state.iteration + 1,
    attempt: run.state.attempt,
    maxIterations: run.state.maxIterations,
    step: run.steps().currentStep,
    startedAtMs: run.deps.clock.now(),
  });
  let ran;
  try {
    ran = await runIteration(run.ctx, run.state, run.body, run.gitState);
  } catch (error) {
    if (isWiggumError(error, 'E_MEMORY_CORRUPT') || isWiggumError(error, 'E_MEMORY_TOO_LARGE'))
      return reject(run, error);
    throw error;
  } finally {
    if (run.prepared.harnessRecord !== null) emptyHarnessRecord(run.prepared.harnessRecord);
  }
  // The last checkpoint, written behind this run, is renamed before the file is read again.
  await run.checkpoints.written();
  // Stories the user added while the agent ran: a completion claim cannot cover them.
  await run.follow();
  const after = await storiesAddedDuringRun(run.file, { ...run.view(), prd: ran.prd }, run.ctx.store, run.log);
  ({ body: run.body, text: run.lastText, prd: run.prd } = after.view);
  run.late = after.added;
  ran = { ...ran, ...withStoriesAddedDuringRun(ran, after.added, run.prd ?? ran.prd) };
  run.gitState = ran.gitState;
  run.lastOutput = ran.outputTail;
  run.lastStderr = ran.stderrTail;
  return ran;
}

/** Carries out the decision: an ending, or null when the loop goes on to the next iteration. */
async function act(
  run: LoopRun,
  { action, record: entry, historyKept }: Recorded,
  ran: IterationRun,
): Promise<TaskRunResult | null> {
  switch (action.kind) {
    case 'block':
      return block(run, action.question, entry);
    case 'done': {
      const ended = await complete(run);
      if (ended !== null) return ended;
      // The landing sent the task back (a conflict): the next iteration resolves it.
      run.gitState = null;
      await run.checkpoints.write('running');
      return null;
    }
    case 'reject':
      return reject(run, rejection(action, ran.outcome), entry.iteration);
    case 'stop':
      return stop(run, action.reason);
    case 'continue':
      if (checkpointFollows(run, action)) run.checkpoints.behind(entry, historyKept);
      return null;
    case 'retry':
    case 'wait':
      if (action.kind === 'wait') run.pauses.pause(run.account, action.untilMs, action.why);
      await run.checkpoints.write(
        action.kind === 'wait' ? 'waiting' : 'running',
        entry,
        action.kind === 'wait' ? action : undefined,
        historyKept,
      );
      // Awaited again for its error, had the checkpoint not been written (the file gone or mid-edit).
      await historyKept;
      await waitOut(run, action);
      return null;
  }
}
