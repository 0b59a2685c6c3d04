import type { IterationRecord } from '../memory/history.js';

/**
 * The outcomes a history line names (src/loop/iteration.ts `outcomeName`); any other string, from
 * a later wiggum or a worker of another version, is counted as `other`, so that the label's values
 * stay a short, known list.
 */
export const RUN_OUTCOMES = [
  'complete',
  'refused',
  'continue',
  'nonzero-exit',
  'limit-exceeded',
  'transient',
  'usage-limit',
  'hard',
  'stopped',
  'asked',
  'other',
] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/**
 * The outcomes after which the task's checkpoint counts one more iteration (src/loop/decide.ts):
 * a run that ended on its own, with or without a claim. A retry, a wait, a question, a rejection
 * for good and a run cut short by a stop do not (a stopped run that had already changed something
 * does count in the checkpoint, but its history line cannot tell: it is left out here).
 */
const ITERATION_OUTCOMES: ReadonlySet<RunOutcome> = new Set([
  'complete',
  'refused',
  'continue',
  'nonzero-exit',
  'limit-exceeded',
]);

export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What one agent run adds to the counters, read from its history line. */
export interface RunFigures {
  harness: string;
  outcome: RunOutcome;
  /** The run used up one of the task's iterations. */
  countsAsIteration: boolean;
  /** A transient failure: the loop backs off and runs the same iteration again. */
  retried: boolean;
  /** The agent claimed the task complete and the claim was refused (a story failing, verify failed). */
  refusedClaim: boolean;
  /** As the agent CLI reported them; null when it reported none. */
  tokens: TokenCounts | null;
  costUsd: number | null;
  cpuSeconds: number | null;
}

/** A label value for a harness name: the name as configured, `unknown` when there is none. */
export function harnessLabel(name: string | undefined): string {
  return name === undefined || name === '' ? 'unknown' : name;
}

export function outcomeLabel(outcome: string): RunOutcome {
  return (RUN_OUTCOMES as readonly string[]).includes(outcome) ? (outcome as RunOutcome) : 'other';
}

/** Pure: one history line → what it adds to the counters. */
export function runFigures(record: IterationRecord): RunFigures {
  const outcome = outcomeLabel(record.outcome);
  const usage = record.usage;
  return {
    harness: harnessLabel(record.harness),
    outcome,
    countsAsIteration: ITERATION_OUTCOMES.has(outcome),
    retried: record.action === 'retry',
    refusedClaim: record.completionFound && record.completionAccepted === false,
    tokens:
      usage === undefined
        ? null
        : {
            input: amount(usage.inputTokens),
            output: amount(usage.outputTokens),
            cacheRead: amount(usage.cacheReadTokens),
            cacheWrite: amount(usage.cacheWriteTokens),
          },
    costUsd: usage?.costUsd === undefined ? null : amount(usage.costUsd),
    cpuSeconds: record.resources === undefined ? null : amount(record.resources.cpuMs) / 1000,
  };
}

/** A counter only goes up: a negative or non-finite figure (a record written by hand) adds nothing. */
function amount(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}
