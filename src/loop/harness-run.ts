import type { AgentReport } from '../harness/drivers/driver.js';
import { harnessEnvironment } from '../harness/environment.js';
import { expandArgs } from '../harness/placeholders.js';
import { OutputTail } from '../harness/output-tail.js';
import { runProcess } from '../harness/run-process.js';
import type { ProcessResult } from '../harness/run-process.js';
import type { LoopState } from './decide.js';
import type { IterationContext } from './iteration-context.js';
import type { IterationInput } from './iteration-input.js';
import { iterationDeadline } from './iteration-deadline.js';
import type { IterationDeadline } from './iteration-deadline.js';
import { PromiseScanner } from './promise.js';
import { QuestionScanner } from './question.js';
import type { AskedText } from './question.js';
import { readQuestionFile } from './question-file.js';
import { WiggumError } from '../errors.js';
import type { ProcessSpec } from '../harness/run-process.js';
import { unconfinedWarning } from '../sandbox/decision.js';
import { withoutNestingMarkers } from '../sandbox/environment.js';
import { isUnder } from '../sandbox/mount-plan.js';
import { signalOfExit } from '../sandbox/exit-status.js';
import { confineSpec, missingCommand, notStartedResult } from './sandbox-run.js';

/** One harness run as the iteration reads it afterwards. */
export interface HarnessRun {
  result: ProcessResult;
  report: AgentReport;
  deadline: IterationDeadline;
  /** The promise printed on stdout (the driver's final message, when it has one, is read instead). */
  promiseSeen: boolean;
  /** A question printed on stdout, or null. */
  printedQuestion: AskedText | null;
  /** The question the agent wrote into its question file, or null. */
  fileQuestion: AskedText | null;
  /** What the agent said, as shown live: the reports quote its end rather than raw JSON. */
  shown: string;
  /** The sandbox limit the run hit (a message for the report), or null. */
  limitHit: string | null;
}

/**
 * Runs the harness once on the iteration's prompt: its environment and placeholders, its deadline
 * (the nearer of its own timeout, the task's total time and its max_duration: iteration-deadline.ts),
 * live output, and an end at once when the agent reports what no waiting fixes. The question file
 * is read and the agent's memory absorbed afterwards, whatever the run came to.
 */
export async function runHarness(ctx: IterationContext, state: LoopState, input: IterationInput): Promise<HarnessRun> {
  const reader = ctx.driver.createReader();
  const shown = new OutputTail(ctx.config.harness.tailBytes);
  const scanner = new PromiseScanner(ctx.promise, input.prompt);
  const questions = new QuestionScanner(input.prompt);
  // Ends the run at once when the agent reports what no waiting fixes (a refused key it would
  // otherwise retry for minutes); a stop request of the user aborts it too, passed on by a
  // listener removed after the run (AbortSignal.any costs more per run, for the same signal).
  const giveUp = new AbortController();
  const passStop = (): void => giveUp.abort(ctx.signal.reason);
  if (ctx.signal.aborted) passStop();
  else ctx.signal.addEventListener('abort', passStop, { once: true });
  const deadline = iterationDeadline({
    perIterationMs: ctx.config.loop.perIterationTimeoutMs,
    totalMs: ctx.config.loop.totalTimeoutMs,
    activeMs: state.activeMs,
    maxDurationMs: ctx.budget.maxDurationMs,
    agentMs: state.spent.agentMs,
  });
  let result: ProcessResult;
  let limitHit: string | null = null;
  let fileQuestion: AskedText | null = null;
  try {
    const spec: ProcessSpec = {
      command: ctx.harness.command,
      args: expandArgs(ctx.harness.args, input.values),
      cwd: ctx.workdir,
      env: withoutNestingMarkers(
        harnessEnvironment(ctx.env, ctx.config.harness.envAllowlist, harnessVariables(ctx, state, input)),
      ),
      stdin: input.prompt,
      timeoutMs: deadline.timeoutMs,
      idleTimeoutMs: ctx.config.loop.idleTimeoutMs,
      stopGraceMs: ctx.config.harness.stopGraceMs,
      logFile: input.logFile,
      logMaxBytes: ctx.config.harness.logMaxBytes,
      tailBytes: ctx.config.harness.tailBytes,
      configKey: `harnesses.${ctx.harness.name}.command`,
      mask: ctx.mask,
      signal: giveUp.signal,
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
    };
    const ran = await runConfined(ctx, state, input, spec);
    result = ran.result;
    limitHit = ran.limitHit;
  } finally {
    ctx.signal.removeEventListener('abort', passStop);
    fileQuestion = await readAfterRun(ctx, input);
  }
  return {
    result,
    report: reader.finish(result),
    deadline,
    promiseSeen: scanner.detected,
    printedQuestion: questions.question,
    fileQuestion,
    shown: shown.text(),
    limitHit,
  };
}

/**
 * Runs the spec as the iteration's confinement says: inside bubblewrap, unconfined (mode off, or
 * auto without bubblewrap: said as a warning on every run), or not at all when it must be confined
 * and cannot be (a run that never started, E_SANDBOX_UNAVAILABLE).
 */
async function runConfined(
  ctx: IterationContext,
  state: LoopState,
  input: IterationInput,
  spec: ProcessSpec,
): Promise<{ result: ProcessResult; limitHit: string | null }> {
  const { confinement } = input.confinement;
  if (confinement.kind === 'refused') {
    const error = new WiggumError('E_SANDBOX_UNAVAILABLE', confinement.message);
    return { result: notStartedResult(ctx, error), limitHit: null };
  }
  if (confinement.kind === 'unconfined' && confinement.reason === 'missing')
    ctx.logger.warn(
      { event: 'sandbox.unconfined', iteration: input.iteration, why: confinement.why },
      unconfinedWarning(confinement.why),
    );
  // Folders only: a file bound on its own cannot be replaced by a rename (EBUSY), which is how an
  // agent writes prd.json atomically; a file already inside the folder or the workdir needs no bind.
  const files = input.files;
  const memory =
    files === null
      ? []
      : [
          files.dir,
          ...[files.prd, files.progress].filter((file) => !isUnder(file, files.dir) && !isUnder(file, ctx.workdir)),
        ];
  const runner = {
    settings: ctx.harness.sandbox,
    kind: ctx.harness.kind,
    homeName: ctx.harness.name,
    runName: `${input.iteration}.${state.attempt}`,
    named: Object.values(ctx.harness.env),
  };
  // A command that is not there fails as it would unconfined, before bubblewrap is started for it.
  const missing = input.confinement.name === 'bwrap' ? await missingCommand(spec) : null;
  if (missing !== null) return { result: notStartedResult(ctx, missing), limitHit: null };
  const confined = await confineSpec(ctx, runner, input.confinement, spec, memory);
  const result = await runProcess(confined.spec, ctx.processes);
  const limitHit = await confined.finish(result);
  return { result: input.confinement.name === 'bwrap' ? signalOfExit(result) : result, limitHit };
}

function harnessVariables(ctx: IterationContext, state: LoopState, input: IterationInput): Record<string, string> {
  return {
    ...ctx.harness.env,
    WIGGUM_TASK_ID: ctx.taskId,
    WIGGUM_TASK_FILE: ctx.taskFile,
    WIGGUM_ITERATION: String(input.iteration),
    WIGGUM_MAX_ITERATIONS: String(state.maxIterations),
    WIGGUM_ATTEMPT: String(state.attempt),
    WIGGUM_WORKDIR: ctx.workdir,
    WIGGUM_SESSION_DIR: input.values.session_dir,
    WIGGUM_PRD: input.values.prd,
    WIGGUM_PROGRESS: input.values.progress,
    WIGGUM_CONTEXT: input.values.context,
    WIGGUM_PROMISE: ctx.promise,
    WIGGUM_QUESTION: input.questionFile,
  };
}

/** The question file, read before the memory is absorbed: a store without a folder of its own removes the scratch folder there. */
async function readAfterRun(ctx: IterationContext, input: IterationInput): Promise<AskedText | null> {
  const question = await readQuestionFile(input.questionFile, ctx.mask).catch((error: unknown) => {
    ctx.logger.warn(
      { event: 'iteration.question-unread', file: input.questionFile, err: error },
      `could not read the agent's question file ${input.questionFile}; the run counts as one without a question`,
    );
    return null;
  });
  await input.files
    ?.absorb()
    .catch((error: unknown) =>
      ctx.logger.warn({ event: 'iteration.memory-unread', err: error }, 'could not read the agent memory back'),
    );
  return question;
}
