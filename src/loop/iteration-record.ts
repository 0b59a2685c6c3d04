import type { GitSummary } from '../git/changes.js';
import type { storySummary } from '../memory/prd.js';
import { plural } from '../plural.js';
import { isoSeconds } from '../time/clock.js';
import { outcomeName } from './classify.js';
import type { HarnessRun } from './harness-run.js';
import type { IterationContext, IterationRun } from './iteration-context.js';
import type { IterationOutcome } from './outcome.js';
import type { Asking } from './question.js';

/** What the history line of one run is made of. */
export interface RecordFacts {
  iteration: number;
  attempt: number;
  startedAtMs: number;
  endedAtMs: number;
  run: HarnessRun;
  outcome: IterationOutcome;
  asking: Asking;
  completionFound: boolean;
  stories: ReturnType<typeof storySummary>;
  git: GitSummary | null;
  logFile: string | null;
  /** How the agent ran: confined by bubblewrap, or not (sandbox-run.ts). */
  sandbox: 'bwrap' | 'off' | 'unconfined';
}

/** The history line of one run, without the decision's `action` and `nextState`, which the loop adds. */
export function iterationRecord(ctx: IterationContext, facts: RecordFacts): IterationRun['record'] {
  const { result, report } = facts.run;
  const { outcome, iteration } = facts;
  const record: IterationRun['record'] = {
    iteration,
    attempt: facts.attempt,
    startedAt: isoSeconds(facts.startedAtMs),
    endedAt: isoSeconds(facts.endedAtMs),
    durationMs: result.durationMs,
    harness: ctx.harness.name,
    exitCode: result.exitCode,
    signal: result.signal,
    outcome: outcomeName(outcome),
    completionFound: facts.completionFound,
    storiesPassing: facts.stories.passing,
    storiesTotal: facts.stories.total,
    sandbox: facts.sandbox,
  };
  if (outcome.kind === 'claimed') {
    record.completionAccepted = outcome.accepted;
    if (outcome.refusal !== null) record.refusal = outcome.refusal;
  }
  if (facts.git !== null) record.git = facts.git;
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
  if (outcome.kind === 'nonzero-exit' && outcome.limit !== undefined) {
    record.error = { code: 'E_SANDBOX_LIMIT', message: outcome.limit };
    ctx.logger.warn({ event: 'sandbox.limit-hit', iteration }, outcome.limit);
  }
  if (facts.logFile !== null) record.logFile = facts.logFile;
  if (outcome.kind === 'asked')
    record.question = {
      text: outcome.question.text,
      length: outcome.question.length,
      source: facts.asking.kind === 'asked' ? facts.asking.source : 'message',
    };
  return record;
}
