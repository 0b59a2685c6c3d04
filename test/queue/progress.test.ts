import { describe, expect, test } from 'vitest';
import { WiggumError } from '../../src/errors.js';
import type { IterationRecord } from '../../src/memory/history.js';
import { NO_PROGRESS, applyProgress, generationOf, parseProgress, pendingRecords } from '../../src/queue/progress.js';
import type { Progress, ProgressDecision, ProgressState, SequencedRecord } from '../../src/queue/progress.js';

function record(iteration: number): IterationRecord {
  return {
    iteration,
    attempt: 0,
    startedAt: '2026-11-23T10:00:00Z',
    endedAt: '2026-11-23T10:01:00Z',
    durationMs: 60_000,
    harness: 'demo',
    exitCode: 0,
    signal: null,
    outcome: 'continue',
    completionFound: false,
    storiesPassing: 0,
    storiesTotal: 2,
    action: 'continue',
    nextState: 'running',
  };
}

/** Records seq `from`..`to`, one iteration each. */
const records = (from: number, to: number): SequencedRecord[] =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => ({ seq: from + i, record: record(from + i) }));

const msg = (generation: number, seq: number, from = seq): Pick<Progress, 'generation' | 'seq' | 'records'> => ({
  generation,
  seq,
  records: records(from, seq),
});

const state = (generation: number, seq: number): ProgressState => ({ generation, seq });

/** A decision with the appended records shown as their seqs. */
function shown(decision: ProgressDecision): unknown {
  const seqs = 'records' in decision ? { records: decision.records.map((entry) => entry.seq) } : {};
  const missing = decision.kind === 'gap' ? { missing: decision.missing } : {};
  return { kind: decision.kind, ...seqs, ...missing, state: decision.state };
}

describe('applyProgress: the host writes each seq once, never from a stale generation', () => {
  test.each([
    [
      'the first iteration of the first run',
      NO_PROGRESS,
      msg(1, 1),
      { kind: 'apply', records: [1], state: state(1, 1) },
    ],
    ['the next iteration', state(1, 4), msg(1, 5), { kind: 'apply', records: [5], state: state(1, 5) }],
    [
      'a claim (no records) of the first run: nothing to write',
      NO_PROGRESS,
      msg(1, 0),
      { kind: 'ignore-older', state: state(1, 0) },
    ],
    [
      'the same message twice (an event and a catch-up)',
      state(1, 5),
      msg(1, 5),
      { kind: 'ignore-older', state: state(1, 5) },
    ],
    ['an older message arriving late', state(1, 5), msg(1, 3), { kind: 'ignore-older', state: state(1, 5) }],
    [
      'missed events: the pending records fill the hole',
      state(1, 2),
      msg(1, 6, 3),
      { kind: 'apply', records: [3, 4, 5, 6], state: state(1, 6) },
    ],
    [
      'pending records the host already has are skipped, the rest appended once',
      state(1, 4),
      msg(1, 6, 2),
      { kind: 'apply', records: [5, 6], state: state(1, 6) },
    ],
    [
      'a crash: the new generation claims from the last checkpoint; adopted, nothing written',
      state(1, 4),
      msg(2, 4),
      { kind: 'ignore-older', state: state(2, 4) },
    ],
    [
      'the new generation redoes an iteration a zombie already reported: not counted twice, generation adopted',
      state(1, 5),
      msg(2, 5),
      { kind: 'ignore-older', state: state(2, 5) },
    ],
    ['the new generation goes on', state(2, 5), msg(2, 6), { kind: 'apply', records: [6], state: state(2, 6) }],
    [
      'the zombie (generation 1) reports after the take-over: refused',
      state(2, 5),
      msg(1, 6),
      { kind: 'ignore-stale-generation', state: state(2, 5) },
    ],
    [
      'a zombie far behind: refused whatever its seq',
      state(3, 2),
      msg(2, 9, 1),
      { kind: 'ignore-stale-generation', state: state(3, 2) },
    ],
    [
      'the host was down longer than the pending cap: a gap, what is there is written',
      state(1, 2),
      msg(1, 9, 6),
      { kind: 'gap', records: [6, 7, 8, 9], missing: { from: 3, to: 5 }, state: state(1, 9) },
    ],
    [
      'a newer seq with no records at all: a gap of every line since',
      state(1, 2),
      { generation: 1, seq: 4, records: [] },
      { kind: 'gap', records: [], missing: { from: 3, to: 4 }, state: state(1, 4) },
    ],
  ] as const)('%s', (_name, before, progress, expected) => {
    expect(shown(applyProgress(before, progress))).toEqual(expected);
  });

  test('two runs of one task interleaved (a zombie and its successor): every seq written exactly once', () => {
    const arrivals = [
      msg(1, 1),
      msg(1, 2),
      msg(1, 3),
      msg(2, 2),
      msg(1, 4),
      msg(2, 3),
      msg(2, 4),
      msg(1, 5),
      msg(2, 5, 4),
    ];
    let current = NO_PROGRESS;
    const written: number[] = [];
    for (const progress of arrivals) {
      const decision = applyProgress(current, progress);
      if (decision.kind === 'apply' || decision.kind === 'gap')
        written.push(...decision.records.map((entry) => entry.seq));
      current = decision.state;
    }
    expect(written).toEqual([1, 2, 3, 4, 5]);
    expect(current).toEqual(state(2, 5));
  });
});

describe('pendingRecords: what a worker sends, after what the host confirmed', () => {
  test.each([
    ['nothing confirmed', 0, 10, [1, 2, 3]],
    ['some confirmed', 2, 10, [3]],
    ['all confirmed: a message with no records', 3, 10, []],
    ['past the cap: the newest kept', 0, 2, [2, 3]],
  ])('%s', (_name, acked, cap, expected) => {
    expect(pendingRecords(records(1, 3), acked, cap).map((entry) => entry.seq)).toEqual(expected);
  });
});

describe('generationOf: how often the job was taken up', () => {
  test.each([
    ['first take-up', { attemptsStarted: 1, attemptsMade: 0 }, 1],
    ['after a stall (not an attempt): a new generation all the same', { attemptsStarted: 2, attemptsMade: 0 }, 2],
    ['after a failed attempt and its retry', { attemptsStarted: 2, attemptsMade: 1 }, 2],
    ['a BullMQ without attemptsStarted', { attemptsMade: 1 }, 2],
    ['attemptsStarted not yet counted', { attemptsStarted: 0, attemptsMade: 0 }, 1],
  ])('%s', (_name, job, expected) => {
    expect(generationOf(job)).toBe(expected);
  });
});

describe('parseProgress', () => {
  const valid: Progress = {
    version: 2,
    taskId: 'fix-login',
    generation: 2,
    seq: 5,
    records: records(4, 5),
    checkpoint: { status: 'running', iteration: 5, max_iterations: 10 },
    memory: { prd: '{}', progress: 'learned\n', context: null },
    commit: 'b'.repeat(40),
    worker: { id: 'box-1', host: 'box', pid: 42 },
  };
  const viaJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

  test('a message round-trips through JSON', () => {
    const parsed = parseProgress(viaJson(valid));
    expect(parsed.records.map((entry) => entry.record.iteration)).toEqual([4, 5]);
    expect(parsed.checkpoint.iteration).toBe(5);
  });

  test.each([
    ['another version', { version: 3 }, 'protocol version 3'],
    ['generation 0', { generation: 0 }, 'generation'],
    ['records not ending at seq', { seq: 6 }, 'expected'],
    ['records out of order', { records: [...records(5, 5), ...records(4, 4)] }, 'expected'],
    ['a record that is not an iteration record', { records: [{ seq: 5, record: { iteration: 5 } }] }, 'records'],
    ['a short commit id', { commit: 'abc' }, 'commit'],
  ])('refused with E_QUEUE_PROTOCOL: %s', (_name, change, words) => {
    let error: unknown;
    try {
      parseProgress({ ...(viaJson(valid) as object), ...change });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WiggumError);
    expect((error as WiggumError).code).toBe('E_QUEUE_PROTOCOL');
    expect((error as WiggumError).message).toContain(words);
  });
});
