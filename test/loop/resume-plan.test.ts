import { beforeAll, describe, expect, test } from 'vitest';
import type { WiggumConfig } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load.js';
import { checkpointData, loopStateFromCheckpoint } from '../../src/loop/checkpoint.js';
import type { CheckpointInput } from '../../src/loop/checkpoint.js';
import type { LoopState } from '../../src/loop/decide.js';
import { resumePlan, startPlan } from '../../src/loop/resume-plan.js';
import type { ResumePlan } from '../../src/loop/resume-plan.js';
import type { IterationRecord } from '../../src/memory/history.js';
import { NOTHING_SPENT } from '../../src/memory/spent.js';
import { parseTask } from '../../src/task/parse.js';
import { persistenceLoopSchema } from '../../src/task/schema.js';
import type { PersistenceLoop } from '../../src/task/schema.js';
import { isoSeconds } from '../../src/time/clock.js';
import { sentBackLoop } from '../../src/loop/send-back-loop.js';

const NOW = 1_800_000_000_000;
const STARTED = '2026-01-07T10:30:00Z';
const MAX = 10;
const fresh = loopStateFromCheckpoint(undefined, MAX);

/** A checkpoint as the loop writes it and as the next run reads it back from the task file. */
function checkpoint(state: Partial<LoopState>, extra: Partial<CheckpointInput> = {}): PersistenceLoop {
  const data = checkpointData({
    state: { ...fresh, ...state },
    status: 'running',
    session: 's1',
    started: STARTED,
    nowMs: NOW - 60_000,
    completedSteps: [],
    currentStep: null,
    ...extra,
  });
  return persistenceLoopSchema.parse(data);
}

/** One history line: an iteration (or an attempt of one) and what the loop decided after it. */
function line(
  iteration: number,
  outcome: string,
  action: string,
  extra: Partial<IterationRecord> = {},
): IterationRecord {
  return {
    iteration,
    attempt: 0,
    startedAt: STARTED,
    endedAt: STARTED,
    durationMs: 1000,
    harness: 'fake',
    exitCode: 0,
    signal: null,
    outcome,
    completionFound: false,
    storiesPassing: 0,
    storiesTotal: 2,
    usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
    action,
    nextState: action,
    ...extra,
  };
}

/** Iterations 1..n, each finished and followed by the next. */
const finished = (n: number): IterationRecord[] =>
  Array.from({ length: n }, (_, index) => line(index + 1, 'continue', 'continue'));
const spentBy = (lines: number) => ({
  ...NOTHING_SPENT,
  inputTokens: 100 * lines,
  outputTokens: 10 * lines,
  agentMs: 1000 * lines,
});

/** What the loop left in the file after a run that ended Done or Rejected and was then sent back (`wiggum retry`, or by hand). */
let sentBack: (historyLines: number) => PersistenceLoop;
beforeAll(async () => {
  const config: WiggumConfig = await loadConfig();
  sentBack = (historyLines) => {
    const ended = checkpointData({
      state: { ...fresh, iteration: historyLines, spent: spentBy(historyLines) },
      status: 'done',
      session: 's1',
      started: STARTED,
      nowMs: NOW - 60_000,
      completedSteps: ['US-001'],
      currentStep: null,
      ended: true,
      exitReason: 'completed',
    });
    // JSON is YAML: the file holds the keys exactly as the loop wrote them.
    const parsed = parseTask(
      '/v/Done/a-task.md',
      `---\nstate: Done\nharness: fake\npersistence_loop: ${JSON.stringify(ended)}\n---\n# A task\n`,
    );
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    return persistenceLoopSchema.parse(sentBackLoop(parsed.task, config, historyLines));
  };
});

describe('resumePlan: where a run picks a task up', () => {
  const cases: [
    string,
    () => PersistenceLoop | undefined,
    IterationRecord[],
    Partial<ResumePlan>,
    Partial<LoopState>,
  ][] = [
    [
      'a task that never ran starts at iteration 1',
      () => undefined,
      [],
      { resumed: false, countedIteration: null, first: 'loop', historyBase: 0, pause: null, started: isoSeconds(NOW) },
      { iteration: 0, attempt: 0, maxIterations: MAX, spent: NOTHING_SPENT },
    ],
    [
      'a crash mid-iteration: that iteration runs again under its number',
      () => checkpoint({ iteration: 3, spent: spentBy(3) }),
      finished(3),
      { resumed: true, countedIteration: null, first: 'loop', started: STARTED },
      { iteration: 3, spent: spentBy(3) },
    ],
    [
      'a crash after the history line, before the checkpoint: the iteration counts and is not run again',
      () => checkpoint({ iteration: 3, spent: spentBy(3), noProgressStreak: 1 }),
      finished(4),
      { countedIteration: 4, first: 'loop' },
      { iteration: 4, attempt: 0, spent: spentBy(4), noProgressStreak: 1 },
    ],
    [
      'the counted iteration completed the task: it ends as done, with no other agent run',
      () => checkpoint({ iteration: 3, spent: spentBy(3) }),
      [...finished(3), line(4, 'complete', 'done', { completionFound: true, completionAccepted: true })],
      { countedIteration: 4, first: 'done' },
      { iteration: 4, spent: spentBy(4) },
    ],
    [
      'an exit with an error code finished its iteration: counted',
      () => checkpoint({ iteration: 3 }),
      [...finished(3), line(4, 'nonzero-exit', 'continue', { exitCode: 2 })],
      { countedIteration: 4, first: 'loop' },
      { iteration: 4 },
    ],
    [
      'a refused claim, counted: its refusal goes into the next prompt',
      () => checkpoint({ iteration: 3 }),
      [
        ...finished(3),
        line(4, 'refused', 'continue', {
          completionFound: true,
          completionAccepted: false,
          refusal: 'US-002 does not pass',
        }),
      ],
      { countedIteration: 4, first: 'loop' },
      { iteration: 4, refusal: 'US-002 does not pass' },
    ],
    [
      'a refused claim already checkpointed: its refusal still goes into the next prompt',
      () => checkpoint({ iteration: 4 }),
      [
        ...finished(3),
        line(4, 'refused', 'continue', {
          completionFound: true,
          completionAccepted: false,
          refusal: 'US-002 does not pass',
        }),
      ],
      { countedIteration: null },
      { iteration: 4, refusal: 'US-002 does not pass' },
    ],
    [
      'a crash after a retry line, before its checkpoint: the same iteration, the attempt as checkpointed',
      () => checkpoint({ iteration: 3, attempt: 1 }),
      [...finished(3), line(4, 'transient', 'retry', { attempt: 1, exitCode: 1 })],
      { countedIteration: null, first: 'loop' },
      { iteration: 3, attempt: 1 },
    ],
    [
      'a usage-limit line is not a finished iteration',
      () => checkpoint({ iteration: 3 }),
      [...finished(3), line(4, 'usage-limit', 'wait')],
      { countedIteration: null },
      { iteration: 3 },
    ],
    [
      'a stopped run is not counted from its line: it runs again (at least once)',
      () => checkpoint({ iteration: 3 }),
      [...finished(3), line(4, 'stopped', 'stop')],
      { countedIteration: null },
      { iteration: 3 },
    ],
    [
      'a hard failure line is not counted',
      () => checkpoint({ iteration: 3 }),
      [...finished(3), line(4, 'hard', 'reject')],
      { countedIteration: null },
      { iteration: 3 },
    ],
    [
      'the checkpoint ahead of the history (a line lost, or memory that was not durable): the checkpoint wins',
      () => checkpoint({ iteration: 5, spent: spentBy(5) }),
      finished(3),
      { countedIteration: null, resumed: true },
      { iteration: 5, spent: spentBy(5) },
    ],
    [
      'a line that the checkpoint counted already is not counted twice',
      () => checkpoint({ iteration: 4, spent: spentBy(4) }),
      [...finished(3), line(4, 'complete', 'done', { completionFound: true, completionAccepted: true })],
      { countedIteration: null, first: 'loop' },
      { iteration: 4, spent: spentBy(4) },
    ],
    [
      'history without a checkpoint (the keys removed by hand): the last finished line says how far it got',
      () => undefined,
      finished(2),
      { countedIteration: 2, resumed: true },
      { iteration: 2 },
    ],
    [
      'with a checkpoint every 2 iterations, two uncounted lines: the loop goes on after the last',
      () => checkpoint({ iteration: 2 }),
      finished(4),
      { countedIteration: 4 },
      { iteration: 4 },
    ],
    [
      'waiting out a usage limit: its harness stays paused until the reset',
      () =>
        checkpoint(
          { iteration: 3, usageWaits: 1, waitingSinceMs: NOW - 120_000 },
          { status: 'waiting', waitingUntilMs: NOW + 3_600_000, waitingFor: 'usage-limit' },
        ),
      finished(3),
      { pause: { untilMs: NOW + 3_600_000, why: 'usage-limit' }, countedIteration: null },
      { iteration: 3, usageWaits: 1, waitingSinceMs: NOW - 120_000 },
    ],
    [
      'waiting out an outage: paused until the next probe, the wait counted from its start',
      () =>
        checkpoint(
          { iteration: 3, attempt: 4, waitingSinceMs: NOW - 600_000 },
          { status: 'waiting', waitingUntilMs: NOW + 8000, waitingFor: 'outage' },
        ),
      finished(3),
      { pause: { untilMs: NOW + 8000, why: 'outage' } },
      { attempt: 4, waitingSinceMs: NOW - 600_000 },
    ],
    [
      'a wait time in a checkpoint that is no longer waiting: no pause',
      () => checkpoint({ iteration: 3 }, { status: 'running', waitingUntilMs: NOW + 8000 }),
      finished(3),
      { pause: null },
      { iteration: 3 },
    ],
    [
      'sent back from Rejected/ or Done/: fresh budgets, and the earlier run’s lines are not this run’s',
      () => sentBack(5),
      finished(5),
      { historyBase: 5, countedIteration: null, first: 'loop', resumed: true, started: STARTED },
      { iteration: 0, attempt: 0, spent: NOTHING_SPENT },
    ],
    [
      'sent back after it was done: the old done line does not end the new run at once',
      () => sentBack(5),
      [...finished(4), line(5, 'complete', 'done', { completionFound: true, completionAccepted: true })],
      { historyBase: 5, countedIteration: null, first: 'loop' },
      { iteration: 0 },
    ],
    [
      'sent back, then a crash after its first line, before its checkpoint: counted from this run’s lines',
      () => checkpoint({ iteration: 0 }, { historyBase: 5 }),
      [...finished(5), line(1, 'continue', 'continue')],
      { historyBase: 5, countedIteration: 1, first: 'loop' },
      { iteration: 1, spent: spentBy(1) },
    ],
    [
      'sent back, then its first line completed the task before a crash: done',
      () => checkpoint({ iteration: 0 }, { historyBase: 5 }),
      [...finished(5), line(1, 'complete', 'done', { completionFound: true, completionAccepted: true })],
      { countedIteration: 1, first: 'done' },
      { iteration: 1 },
    ],
    [
      'the counters come back: stuck streak, usage waits, time used, the 80 % warning',
      () => checkpoint({ iteration: 6, noProgressStreak: 2, usageWaits: 1, activeMs: 42_000, warned: true }),
      finished(6),
      {},
      { noProgressStreak: 2, usageWaits: 1, activeMs: 42_000, warned: true, refusal: null },
    ],
    [
      'max_iterations in force now wins over the one in the checkpoint',
      () => checkpoint({ iteration: 3, maxIterations: 5 }),
      finished(3),
      {},
      { maxIterations: MAX },
    ],
  ];

  test.each(cases)('%s', (_name, file, history, plan, state) => {
    const planned = resumePlan(file(), history, { maxIterations: MAX, nowMs: NOW });
    expect(planned).toMatchObject(plan);
    expect(planned.state).toMatchObject(state);
  });

  test('state_data another program mangled reads as zeros, never as a negative or a fraction', () => {
    const mangled = {
      ...checkpoint({ iteration: 2 }),
      checkpoint: {
        completed_steps: [],
        state_data: { attempt: -3, no_progress: 'two', active_ms: 1.7e3, usage_waits: Number.NaN, warned: 'yes' },
      },
    };
    expect(resumePlan(mangled, finished(2), { maxIterations: MAX, nowMs: NOW }).state).toMatchObject({
      iteration: 2,
      attempt: 0,
      noProgressStreak: 0,
      activeMs: 1700,
      usageWaits: 0,
      warned: false,
    });
  });
});

describe('startPlan: a task in Approved/ whose file says it ended', () => {
  test.each([
    ['not ended: it runs', null, false, { kind: 'run' }],
    ['not ended, a marker of no matter: it runs', null, true, { kind: 'run' }],
    [
      'done, with the marker: a crash cut the move short, so the move is finished',
      'done',
      true,
      { kind: 'finish-move', as: 'done' },
    ],
    ['rejected, with the marker: the move is finished', 'rejected', true, { kind: 'finish-move', as: 'rejected' }],
    [
      'done, without the marker: someone put it back, so it is sent back and runs again',
      'done',
      false,
      { kind: 'send-back', from: 'done' },
    ],
    [
      'rejected, without the marker: sent back and run again',
      'rejected',
      false,
      { kind: 'send-back', from: 'rejected' },
    ],
  ] as const)('%s', (_name, ended, pendingMove, plan) => {
    expect(startPlan(ended, pendingMove)).toEqual(plan);
  });
});
