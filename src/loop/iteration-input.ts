import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { agentFiles } from '../memory/agent-files.js';
import type { AgentFiles } from '../memory/agent-files.js';
import { storySummary } from '../memory/prd.js';
import type { Prd } from '../memory/prd.js';
import { questionRounds, withoutQuestionSections } from '../task/question-section.js';
import type { LoopState } from './decide.js';
import type { IterationContext } from './iteration-context.js';
import type { PlaceholderValues } from '../harness/placeholders.js';
import { buildPrompt } from './prompt.js';
import { runConfinement, runFolder } from './sandbox-run.js';
import type { RunConfinement } from './sandbox-run.js';

/** What one iteration starts from: the memory before it, the prompt, and where the agent's files are. */
export interface IterationInput {
  iteration: number;
  prdBefore: Prd;
  storiesBefore: ReturnType<typeof storySummary>;
  /** A hash of progress.txt before the run: a changed one is progress. */
  progressBefore: string;
  /** Its length in bytes: an agent's progress.txt over its limit is cut back to it (memory-bounds.ts). */
  progressBytesBefore: number;
  /** The agent's memory files (null: none could be made for it). */
  files: AgentFiles | null;
  prompt: string;
  /** The harness's placeholders (`{workdir}`, `{prd}`, …). */
  values: PlaceholderValues;
  /** Where the agent may write a question instead of printing it: one file per run, read after it. */
  questionFile: string;
  logFile: string | null;
  /** How the harness runs: confined by bubblewrap, or not and why (sandbox-run.ts). */
  confinement: RunConfinement;
}

/** Reloads memory and the task body and builds the prompt of the next iteration. */
export async function iterationInput(ctx: IterationContext, state: LoopState, body: string): Promise<IterationInput> {
  const iteration = state.iteration + 1;
  const prdBefore = await ctx.store.loadPrd();
  const storiesBefore = storySummary(prdBefore);
  const context = await ctx.store.loadContext();
  const confinement = await runConfinement(ctx, ctx.harness.sandbox);
  // A confined agent writes copies of its memory, never wiggum's own records (agent-files.ts).
  const scratch = confinement.confinement.kind === 'bwrap' ? runFolder(ctx, 'memory') : undefined;
  const files = await agentFiles(ctx.store, ctx.taskId, scratch, ctx.config.memory.limits);
  const progressText = await ctx.store.loadProgress();
  const progressBefore = hash(progressText);
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
  const values: PlaceholderValues = {
    workdir: ctx.workdir,
    session_dir: files?.dir ?? '',
    prd: files?.prd ?? '',
    progress: files?.progress ?? '',
    context: files?.context ?? '',
    task_id: ctx.taskId,
    iteration: String(iteration),
    promise: ctx.promise,
  };
  return {
    iteration,
    prdBefore,
    storiesBefore,
    progressBefore,
    progressBytesBefore: Buffer.byteLength(progressText),
    files,
    prompt,
    values,
    questionFile: files === null ? '' : join(files.dir, `question.${iteration}.${state.attempt}.txt`),
    logFile: ctx.store.logFile(iteration, state.attempt),
    confinement,
  };
}

export function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
