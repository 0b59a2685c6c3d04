/** Everything an iteration's prompt is built from; all of it is reloaded from disk each iteration. */
export interface PromptInput {
  iteration: number;
  maxIterations: number;
  promise: string;
  taskId: string;
  title: string;
  /** The task file's body: the user's own words, re-read every iteration. */
  body: string;
  workdir: string;
  branch: string | null;
  /** The files the agent reads and updates (scratch copies when memory is not durable), or null when there are none. */
  paths: { prd: string; progress: string; sessionDir: string } | null;
  /** Whether what the agent writes there outlives wiggum; false: it is told so. */
  durable: boolean;
  stories: { passing: number; total: number; next: { id: string; title: string } | null };
  /** context.md: guidance the user added while the loop runs. */
  context: string;
  /** Why the last completion claim was not accepted. */
  refusal: string | null;
}

/**
 * The prompt for one iteration: a preamble with the iteration number and the rules of
 * an autonomous loop with on-disk memory, the task, the user's mid-loop context under
 * its own heading, and the reason a previous completion claim was refused.
 */
export function buildPrompt(input: PromptInput): string {
  const sections = [preamble(input), task(input)];
  if (input.context.trim() !== '') {
    sections.push(`## Additional Context (added by user mid-loop)\n\n${input.context.trim()}`);
  }
  if (input.refusal !== null) {
    sections.push(
      `## Your last completion claim was refused\n\n${input.refusal}\n\nFix this before you claim completion again.`,
    );
  }
  return `${sections.join('\n\n')}\n`;
}

function preamble(input: PromptInput): string {
  const prd = input.paths?.prd ?? 'prd.json';
  const progress = input.paths?.progress ?? 'progress.txt';
  const next = input.stories.next;
  const lines = [
    `# Iteration ${input.iteration} of ${input.maxIterations}`,
    '',
    'You are one iteration of an autonomous development loop. You start with no memory of earlier',
    'iterations: what they did is in git, in the task list and in the progress log. Nobody will',
    'answer questions: decide, act, verify, and write down what the next iteration needs to know.',
    '',
    '## How to work',
    '',
    `1. Read the task list \`${prd}\` (JSON; every story has \`passes\`).`,
    `2. Read the progress log \`${progress}\`: the \`## Codebase Patterns\` section first, then the latest entries.`,
    '3. Take the highest-priority story (lowest `priority` number) with `passes: false`. Work on that story only.',
    '4. Implement it, then verify it: run the tests, type checks and linters the project has.',
    `5. When it works, set \`"passes": true\` for that story in \`${prd}\`.`,
    `6. Append to \`${progress}\` a section \`## <date> - <story id>\` with what you did, the files you changed and`,
    '   **Learnings for future iterations**; add general, reusable patterns to `## Codebase Patterns` at the top.',
    '7. Update the AGENTS.md files next to the code you changed with conventions and gotchas worth keeping.',
    '8. Commit your changes as `feat: [Story ID] - [Story Title]`.',
    `9. Only when every story has \`passes: true\`, end your reply with <promise>${input.promise}</promise>`,
    '   Never print it otherwise: it ends the loop, and the claim is checked.',
    '',
    `Working directory: ${input.workdir}`,
  ];
  if (input.branch !== null) lines.push(`Git branch: ${input.branch}`);
  if (!input.durable) {
    lines.push(
      'Memory: NOT durable in this run: the task list and progress log above are scratch copies that wiggum reads back after you exit.',
    );
  } else if (input.paths !== null) {
    lines.push(`Session folder: ${input.paths.sessionDir}`);
  }
  lines.push(
    `Stories: ${input.stories.passing} of ${input.stories.total} passing` +
      (next === null ? '.' : `; next: ${next.id} ${next.title}`),
  );
  return lines.join('\n');
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
