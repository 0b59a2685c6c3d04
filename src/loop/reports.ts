import type { ErrorCode } from '../errors.js';
import { inertBlock, inertLine } from '../task/inert-text.js';
import type { IterationRecord } from '../memory/history.js';
import { describeSpent } from '../memory/spent.js';
import type { Spent } from '../memory/spent.js';
import { formatProblem } from '../problem.js';
import type { Problem } from '../problem.js';
import { plural } from '../plural.js';
import { ordinal } from '../task/iteration-count.js';
import { storyLine } from './report-bounds.js';

/** What both reports say about how the loop went. */
export interface LoopFacts {
  taskId: string;
  harness: string;
  /** Iterations finished. */
  iterations: number;
  maxIterations: number;
  startedAt: string;
  endedAt: string;
  activeMs: number;
  /** Tokens, cost, agent time, CPU and memory over every run of the task. */
  spent: Spent;
  stories: { id: string; title: string; passes: boolean }[];
  /** Where the memory is, relative to the vault when inside it; null when it was not durable. */
  sessionDir: string | null;
  /** The task was refused before any memory was opened. */
  noMemoryYet?: boolean;
  history: IterationRecord[];
  /** The last lines the agent printed. */
  lastOutput: string;
  /** Where the task's work went (its branch, commits and diffstat; the merge; the pull request), as Markdown. */
  landing?: string;
}

export interface FailureFacts extends LoopFacts {
  code: ErrorCode;
  reason: string;
  /** The iteration that failed (being attempted when the loop ended). */
  failedIteration: number;
  /** The harness's stderr tail, or the reason when it printed none. */
  errorDetail: string;
  /**
   * wiggum's own error with its causes and their stacks (`describeErrorChain`, secrets redacted),
   * shown folded; null when the failure is one the agent reported itself, whose stack is wiggum's
   * bookkeeping and says nothing.
   */
  errorChain: string | null;
  checkpoint: {
    completed_steps: string[];
    current_step?: string | null | undefined;
    state_data?: Record<string, unknown> | undefined;
  };
  logFile: string | null;
}

const MAX_HISTORY_ROWS = 60;

/**
 * Failures the agent reported about itself (its output, its exit code): the report shows its
 * stderr, and wiggum's stack would only show where the loop read it. Every other code is wiggum's
 * own (a bound reached, memory unreadable, a timeout it enforced), and its stack is shown.
 */
const AGENT_REPORTED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'E_HARNESS_AUTH',
  'E_HARNESS_RATE_LIMIT',
  'E_HARNESS_OVERLOADED',
  'E_HARNESS_BILLING',
  'E_HARNESS_CONTEXT',
  'E_HARNESS_USAGE_LIMIT',
  'E_HARNESS_NETWORK',
  'E_HARNESS_EXIT',
  'E_HARNESS_TEMPFAIL',
  'E_HARNESS_FATAL',
]);

export function isAgentReported(code: ErrorCode): boolean {
  return AGENT_REPORTED.has(code);
}

/** `## Completion summary`, appended to a task that reached Done/. */
export function completionSummary(facts: LoopFacts): string {
  const retries = facts.history.filter((record) => record.attempt > 0).length;
  const lines = [
    '## Completion summary',
    '',
    `- Completed ${facts.endedAt} after ${plural(facts.iterations, 'iteration')}` +
      (retries > 0 ? ` and ${plural(retries, 'retry', 'retries')}` : '') +
      `, ${seconds(facts.activeMs)} of work (started ${facts.startedAt}).`,
    `- Harness: ${facts.harness}.`,
    `- Used: ${describeSpent(facts.spent)}.`,
    `- Stories: ${storyLine(facts.stories)}`,
    memoryLine(facts.sessionDir, facts.noMemoryYet),
  ];
  if (facts.landing !== undefined && facts.landing.trim() !== '')
    lines.push('', '### Landing', '', facts.landing.trim());
  const output = facts.lastOutput.trim();
  if (output !== '') lines.push('', '### Last output', '', fence(output));
  return lines.join('\n');
}

/** `## Failure report`, appended to a task that went to Rejected/: everything needed to see why. */
export function failureReport(facts: FailureFacts): string {
  const lines = [
    '## Failure report',
    '',
    `- Reason: ${inertLine(facts.reason)} (${facts.code}).`,
    whenLine(facts),
    `- Harness: ${facts.harness}.`,
    `- Used: ${describeSpent(facts.spent)}.`,
    `- Stories: ${storyLine(facts.stories)}`,
    `- Checkpoint: completed steps ${facts.checkpoint.completed_steps.length === 0 ? 'none' : facts.checkpoint.completed_steps.join(', ')}` +
      `; current step ${facts.checkpoint.current_step ?? 'none'}` +
      (facts.checkpoint.state_data === undefined
        ? '.'
        : `; state data ${JSON.stringify(facts.checkpoint.state_data)}.`),
    memoryLine(facts.sessionDir, facts.noMemoryYet),
  ];
  if (facts.logFile !== null) lines.push(`- Full output of the failing run: \`${facts.logFile}\`.`);

  lines.push('', '### What to do next', '', nextStep(facts.code, facts.taskId));

  const detail = facts.errorDetail.trim();
  if (detail !== '') lines.push('', '### Error', '', fence(detail));
  if (facts.errorChain !== null && facts.errorChain.trim() !== '') lines.push('', foldedStack(facts.errorChain));

  lines.push('', '### Iterations and retries', '');
  if (facts.history.length === 0) {
    lines.push('No iteration finished.');
  } else {
    const rows = facts.history.slice(-MAX_HISTORY_ROWS);
    if (rows.length < facts.history.length)
      lines.push(`The last ${rows.length} of ${facts.history.length} runs (all of them are in history.jsonl):`, '');
    lines.push(
      '| iteration | attempt | started | duration | exit | outcome | promise | stories | next |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const record of rows) {
      lines.push(
        `| ${record.iteration} | ${record.attempt} | ${record.startedAt} | ${seconds(record.durationMs)} | ${record.signal ?? record.exitCode ?? '—'} | ${cell(record.outcome + (record.error ? `: ${record.error.message}` : ''))} | ${record.completionFound ? (record.completionAccepted ? 'accepted' : 'refused') : 'no'} | ${record.storiesPassing}/${record.storiesTotal} | ${cell(record.nextState)} |`,
      );
    }
  }

  const output = facts.lastOutput.trim();
  if (output !== '') lines.push('', '### Last output', '', fence(output));
  return lines.join('\n');
}

/** `## Failure report` for a task file that is not valid: each problem with its file, line and column. */
export function invalidTaskReport(problems: Problem[], rejectedAt: string): string {
  return [
    '## Failure report',
    '',
    '- Reason: the task file is not valid, so no iteration was run (E_TASK_SCHEMA).',
    `- Rejected at ${rejectedAt}.`,
    '',
    '### Problems',
    '',
    fence(problems.map(formatProblem).join('\n')),
    '',
    '### What to do next',
    '',
    'Fix the problems above (`wiggum validate FILE` checks the file), delete this report, and move the file back to Approved/.',
  ].join('\n');
}

/** When the task failed, counted as every view counts (iterations finished). */
function whenLine(facts: FailureFacts): string {
  const work = `after ${seconds(facts.activeMs)} of work (started ${facts.startedAt})`;
  if (facts.code === 'E_MAX_ITERATIONS')
    return `- Used ${facts.maxIterations === 1 ? 'its only iteration' : `all ${facts.maxIterations} iterations`} without completing, at ${facts.endedAt}, ${work}.`;
  // Refused before the loop could run (an unknown harness, a workdir outside the allowed folders):
  // no iteration was attempted, so none is named as the one that failed.
  if (facts.noMemoryYet === true) {
    return facts.iterations === 0
      ? `- Refused before any iteration ran, at ${facts.endedAt}: nothing was run.`
      : `- Refused before its next iteration could run, at ${facts.endedAt}, with ${plural(facts.iterations, 'iteration')} of at most ${facts.maxIterations} done.`;
  }
  // The count every view shows is the iterations finished: the one that failed is said apart.
  const done = facts.failedIteration - 1;
  return `- Failed after ${plural(done, 'iteration')} of at most ${facts.maxIterations} (the ${ordinal(facts.failedIteration)} could not finish), at ${facts.endedAt}, ${work}.`;
}

function nextStep(code: ErrorCode, taskId: string): string {
  const retry = `then send the task back with \`wiggum retry ${taskId}\` (it resumes from its memory; \`--fresh\` starts over).`;
  switch (code) {
    case 'E_MAX_ITERATIONS':
      return `Read progress.txt and the last logs to see where the agent got stuck; split the task or raise \`max_iterations\`, ${retry}`;
    case 'E_NO_PROGRESS':
      return `The agent kept running without changing anything. Add guidance with \`wiggum context add ${taskId} "..."\` or clarify the task, ${retry}`;
    case 'E_TOTAL_TIMEOUT':
      return `Raise \`persistence_loop.timeout.total\` in the config or split the task, ${retry}`;
    case 'E_BUDGET':
      return `Check in progress.txt and the logs what the agent spent it on; raise the task's \`max_tokens\`, \`max_cost_usd\` or \`max_duration\` (or \`persistence_loop.budget\` in the config), or split the task, ${retry}`;
    case 'E_HARNESS_CONTEXT':
      return `The prompt no longer fits the model: shorten the task body, context.md or progress.txt (or use a model with a larger context), ${retry}`;
    case 'E_HARNESS_BILLING':
      return `Add credits or raise the quota of the account the agent uses, ${retry}`;
    case 'E_RETRIES_EXHAUSTED':
    case 'E_HARNESS_USAGE_LIMIT':
      return `The agent's service kept failing or was out of quota. Check it is reachable and has quota, ${retry}`;
    case 'E_HARNESS_MISSING':
    case 'E_HARNESS_AUTH':
      return `Fix the harness as the error says (install it, log in, set its API key), ${retry}`;
    case 'E_TASK_SCHEMA':
    case 'E_TASK_YAML':
    case 'E_TASK_FRONTMATTER':
    case 'E_TASK_ENCODING':
    case 'E_TASK_TOO_LARGE':
      return `Fix the task file as the error says (\`wiggum validate FILE\` checks it), ${retry}`;
    case 'E_LAND_CONFLICT':
      return `The branch still does not merge cleanly into its base. Merge the base into the branch by hand (or split the work), or set \`land: branch\` to keep the branch for review, ${retry}`;
    case 'E_LAND_FAILED':
      return `Fix what the push or the pull-request command reported (the remote, credentials, \`git.pr\` in the config); the branch and its commits are kept, ${retry}`;
    case 'E_MEMORY_CORRUPT':
    case 'E_MEMORY_TOO_LARGE':
      // Without --fresh the task resumes the same memory, so a file that was only deleted fails again.
      return `Repair the file the error names, then send the task back with \`wiggum retry ${taskId}\`; or start over with \`wiggum retry ${taskId} --fresh\` (the broken session is archived, not deleted).`;
    // Every other code: the error's own words say what to fix. Named so that a new code gets its
    // next step on purpose (lint's switch-exhaustiveness-check).
    case 'E_CHECKPOINT_CONFLICT':
    case 'E_CONFIG':
    case 'E_GIT':
    case 'E_HARNESS_EXIT':
    case 'E_HARNESS_FATAL':
    case 'E_HARNESS_IDLE':
    case 'E_HARNESS_NETWORK':
    case 'E_HARNESS_OUTAGE':
    case 'E_HARNESS_OVERLOADED':
    case 'E_HARNESS_RATE_LIMIT':
    case 'E_HARNESS_RETRIABLE':
    case 'E_HARNESS_SPAWN':
    case 'E_HARNESS_TEMPFAIL':
    case 'E_HARNESS_TIMEOUT':
    case 'E_HARNESS_UNKNOWN':
    case 'E_INTERNAL':
    case 'E_LOCKED':
    case 'E_MEMORY_UNAVAILABLE':
    case 'E_NO_HARNESS':
    case 'E_QUEUE_FENCED':
    case 'E_QUEUE_JOB_TOO_LARGE':
    case 'E_QUEUE_PROTOCOL':
    case 'E_QUEUE_STALLED':
    case 'E_QUEUE_URL':
    case 'E_SANDBOX_LIMIT':
    case 'E_SANDBOX_UNAVAILABLE':
    case 'E_SYMLINK_REFUSED':
    case 'E_TASK_EMPTY':
    case 'E_TASK_GONE':
    case 'E_TASK_NOT_FOUND':
    case 'E_TASK_UNANSWERED':
    case 'E_TASK_UNREADABLE':
    case 'E_USAGE':
    case 'E_VERIFY':
    case 'E_WORKDIR':
    case 'E_WRITE':
    default:
      return `Fix the cause above, ${retry}`;
  }
}

function memoryLine(sessionDir: string | null, noMemoryYet = false): string {
  if (noMemoryYet) return '- Memory: none yet (the task was refused before its first iteration).';
  return sessionDir === null
    ? '- Memory: not durable in this run (kept in memory only).'
    : `- Memory: \`${sessionDir}\` (prd.json, progress.txt, context.md, history.jsonl, logs/).`;
}

/**
 * The error chain in an Obsidian callout folded shut (`[!failure]-`): one click opens it, and it
 * does not push the rest of the report down. Every line is quoted, the stack fenced inside.
 */
function foldedStack(chain: string): string {
  const body = [
    `> [!failure]- Stack: wiggum's error and its causes (for a bug report)`,
    ...fence(chain.trim())
      .split('\n')
      .map((line) => `> ${line}`),
  ];
  return body.join('\n');
}

/** A fenced block whose fence is longer than any run of backticks inside, so the text cannot break out. */
export function fence(text: string): string {
  return inertBlock(text);
}

/** A table cell of agent text: one line, cut, every active character (`|` included) escaped. */
function cell(text: string): string {
  return inertLine(text, 200);
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
