import { basename, dirname } from 'node:path';
import type { QuestionRound } from '../task/question-section.js';

/** Everything an iteration's prompt is built from; all of it is reloaded from disk each iteration. */
export interface PromptInput {
  iteration: number;
  maxIterations: number;
  promise: string;
  taskId: string;
  title: string;
  /** The task file's body: the user's own words, re-read every iteration. */
  body: string;
  /** The files the agent reads and updates (scratch copies when memory is not durable), or null when there are none. */
  paths: { prd: string; progress: string; sessionDir: string } | null;
  /** How many stories pass, and the one to do now (its id: the agent reads the rest in prd.json). */
  stories: { passing: number; total: number; next: { id: string } | null };
  /** context.md: guidance the user added while the loop runs. */
  context: string;
  /** Why the last completion claim was not accepted. */
  refusal: string | null;
  /** The questions the agent asked a person, with their answers (task/question-section.ts). */
  answers?: readonly QuestionRound[];
}

/**
 * The parts of a prompt, each there for a reason (docs/performance.md, "Prompt economy", measures
 * them): `heading` the iteration and the budget; `memory` that the agent starts blank and where its
 * memory is; `steps` the protocol of the loop, with the story to do now; `task` the user's task;
 * `context` and `refusal` only when there is one; `answers` once a person answered the agent's question.
 */
export type PromptPart = 'heading' | 'memory' | 'steps' | 'task' | 'context' | 'refusal' | 'answers';

export interface PromptBlock {
  part: PromptPart;
  text: string;
}

/** The prompt for one iteration: its blocks, separated by a blank line. */
export function buildPrompt(input: PromptInput): string {
  return `${promptBlocks(input)
    .map((block) => block.text)
    .join('\n\n')}\n`;
}

/**
 * The blocks of the prompt, in order. The agent reads prd.json and progress.txt itself, so the
 * prompt names them and leaves their contents out: it stays the same size at iteration 10 as at 1.
 */
export function promptBlocks(input: PromptInput): PromptBlock[] {
  const blocks: PromptBlock[] = [
    { part: 'heading', text: `# Iteration ${input.iteration} of ${input.maxIterations}` },
    { part: 'memory', text: memory(input) },
    { part: 'steps', text: steps(input) },
    { part: 'task', text: task(input) },
  ];
  if (input.context.trim() !== '') {
    blocks.push({ part: 'context', text: `## Additional Context (added by user mid-loop)\n\n${input.context.trim()}` });
  }
  const answered = (input.answers ?? []).filter((round) => round.answer !== null);
  if (answered.length > 0) {
    blocks.push({
      part: 'answers',
      text: `## Your questions, answered by a person\n\n${answered.map((round) => `Question: ${round.question}\n\nAnswer: ${round.answer ?? ''}`).join('\n\n')}`,
    });
  }
  if (input.refusal !== null) {
    blocks.push({
      part: 'refusal',
      text: `## Your last completion claim was refused\n\n${input.refusal}\n\nFix this before you claim completion again.`,
    });
  }
  return blocks;
}

/**
 * The names the steps use for the two memory files, and where they are: when both are in the session
 * folder, their file names and the folder said once (a path repeated in every step costs ~15 tokens).
 */
function memoryFiles(input: PromptInput): { prd: string; progress: string; where: string } {
  const paths = input.paths;
  if (paths === null) return { prd: 'prd.json', progress: 'progress.txt', where: 'git, prd.json and progress.txt' };
  const prd = basename(paths.prd);
  const progress = basename(paths.progress);
  if (dirname(paths.prd) === paths.sessionDir && dirname(paths.progress) === paths.sessionDir) {
    return { prd, progress, where: `git and \`${paths.sessionDir}\`` };
  }
  return { prd: paths.prd, progress: paths.progress, where: `git, ${paths.prd} and ${paths.progress}` };
}

function memory(input: PromptInput): string {
  return `You start blank; earlier iterations' work is in ${memoryFiles(input).where}.`;
}

function steps(input: PromptInput): string {
  const { prd, progress } = memoryFiles(input);
  const stories = input.stories.total > 0;
  return [
    `1. Read ${progress} (\`## Codebase Patterns\` first).`,
    `2. ${work(input)} run the project's tests and linters.`,
    stories
      ? `3. When it works, set \`"passes": true\` in ${prd} and commit as \`feat: <id> - <title>\`.`
      : '3. When it works, commit it as `feat: <what it does>`.',
    `4. Append \`## <date> - <id>\` to ${progress}: what you did, files changed, learnings; reusable`,
    '   patterns under `## Codebase Patterns`, lasting conventions in the nearest AGENTS.md.',
    `5. When ${stories ? 'every story passes' : 'the task is done'}, end your reply with <promise>${input.promise}</promise>.`,
    "6. Need a person's decision? End with <question>…</question>.",
  ].join('\n');
}

/**
 * What to work on now: the next story (the lowest `priority` that does not pass, as prd.json's reader
 * decides it). The working directory and the task's branch go unsaid: wiggum checks the branch out
 * and starts the agent in that directory.
 */
function work(input: PromptInput): string {
  const { passing, total, next } = input.stories;
  if (total === 0) return 'Do the task below and';
  if (next === null) return `All ${total} stories pass: see that the task below is done and`;
  return `Do only story ${next.id} (${passing} of ${total} pass): implement it and`;
}

function task(input: PromptInput): string {
  const body = withQuotedPromises(input.body).trim();
  return `## Task: ${input.title} (${input.taskId})${body === '' ? '' : `\n\n${body}`}`;
}

/** The headings of the reports wiggum appends to a task file (reports.ts). */
const REPORT_HEADINGS = ['## Completion summary', '## Failure report'];

/**
 * The task body as the prompt shows it. A Done or Rejected task sent back keeps the reports of its
 * earlier runs, whose "Last output" may hold the promise the agent printed then; in the prompt,
 * the promise scanner takes a later genuine claim printed after the same words (a deterministic
 * agent's) for an echo of it, and the task never completes again. Inside those reports the tags
 * are shown as `‹promise›…‹/promise›`: the agent still reads what happened, and an agent echoing
 * its prompt still prints no promise. The user's own text is left as written.
 */
export function withQuotedPromises(body: string): string {
  const lines = body.split('\n');
  let inReport = false;
  for (const [index, line] of lines.entries()) {
    if (/^## /.test(line)) inReport = REPORT_HEADINGS.includes(line.trimEnd());
    if (inReport) lines[index] = line.replaceAll('<promise>', '‹promise›').replaceAll('</promise>', '‹/promise›');
  }
  return lines.join('\n');
}
