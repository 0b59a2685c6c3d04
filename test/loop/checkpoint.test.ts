import { describe, expect, test } from 'vitest';
import {
  checkpointData,
  historyBaseOf,
  loopStateFromCheckpoint,
  spentOfTask,
  waitCauseOf,
  waitingUntilOf,
} from '../../src/loop/checkpoint.js';
import type { CheckpointInput } from '../../src/loop/checkpoint.js';
import type { LoopState } from '../../src/loop/decide.js';
import type { IterationRecord } from '../../src/memory/history.js';
import { NOTHING_SPENT } from '../../src/memory/spent.js';
import { parseTask } from '../../src/task/parse.js';
import type { Task } from '../../src/task/parse.js';
import { withOwnedKeys } from '../../src/task/render.js';
import type { PersistenceLoop } from '../../src/task/schema.js';

/**
 * The checkpoint as it really travels: built by `checkpointData`, spliced into a task file by
 * `withOwnedKeys`, read back by `parseTask`, and turned into the loop's state again. What a restart
 * resumes with is exactly what the last run had.
 */
const NOW = 1_800_000_000_000;
const MAX = 10;
const TASK = '---\ntitle: Round trip\nharness: fake\n---\n# Round trip\n\n- [ ] US-001 Alpha\n';
const fresh = loopStateFromCheckpoint(undefined, MAX);

function parsed(text: string): Task {
  const result = parseTask('/vault/Approved/round-trip.md', text);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.task;
}

/** The task's `persistence_loop` after a checkpoint of `state` was written into it and read back. */
function roundTrip(state: Partial<LoopState>, extra: Partial<CheckpointInput> = {}): PersistenceLoop {
  const data = checkpointData({
    state: { ...fresh, ...state },
    status: 'running',
    session: 's1',
    started: '2027-01-15T08:00:00Z',
    nowMs: NOW,
    completedSteps: ['US-001'],
    currentStep: 'US-002',
    ...extra,
  });
  const text = withOwnedKeys(parsed(TASK), { state: 'Approved', persistence_loop: data });
  const loop = parsed(text).frontmatter.persistence_loop;
  if (loop === undefined) throw new Error(`no persistence_loop in:\n${text}`);
  return loop;
}

const spent = { inputTokens: 1200, outputTokens: 340, costUsd: 0.0125, agentMs: 61_000, cpuMs: 830, peakRssBytes: 0 };

describe('a checkpoint written into the task file and read back', () => {
  test.each<[string, Partial<LoopState>]>([
    ['a fresh task', {}],
    [
      'mid-run: iteration, attempt, stuck counter and time used',
      { iteration: 4, attempt: 2, noProgressStreak: 3, activeMs: 93_000 },
    ],
    ['after the warning at 80 %', { iteration: 8, warned: true }],
    ['usage-limit waits counted', { iteration: 2, usageWaits: 3 }],
    ['what it spent', { iteration: 3, spent }],
    ['an outage since a time (whole seconds)', { iteration: 1, waitingSinceMs: NOW - 42_000 }],
  ])('%s: the loop resumes with the same state', (_, state) => {
    const expected = { ...fresh, ...state };
    expect(loopStateFromCheckpoint(roundTrip(state), MAX)).toEqual(expected);
  });

  test('max_iterations is whatever is in force now, not what the checkpoint says', () => {
    expect(loopStateFromCheckpoint(roundTrip({ iteration: 4 }), 25)).toMatchObject({ iteration: 4, maxIterations: 25 });
  });

  test('peak memory is written in megabytes, readable in Obsidian, and read back to the byte it rounds to', () => {
    const loop = roundTrip({ spent: { ...spent, peakRssBytes: 65_044_480 } });
    expect(loop.checkpoint?.state_data?.['spent']).toMatchObject({ peak_rss_mb: 62 });
    expect(loopStateFromCheckpoint(loop, MAX).spent.peakRssBytes).toBe(62 * 1024 * 1024);
  });

  test('a wait in progress: until when, and what for', () => {
    const limit = roundTrip({}, { status: 'waiting', waitingUntilMs: NOW + 3_600_000, waitingFor: 'usage-limit' });
    expect([waitingUntilOf(limit), waitCauseOf(limit)]).toEqual([NOW + 3_600_000, 'usage-limit']);
    const outage = roundTrip({}, { status: 'waiting', waitingUntilMs: NOW + 5_000, waitingFor: 'outage' });
    expect([waitingUntilOf(outage), waitCauseOf(outage)]).toEqual([NOW + 5_000, 'outage']);
    // Not waiting: no time, whatever the data says.
    expect(waitingUntilOf(roundTrip({}, { waitingUntilMs: NOW + 5_000 }))).toBeNull();
  });

  test.each<[string, number | undefined, number]>([
    ['never sent back', undefined, 0],
    ['sent back after 7 history lines', 7, 7],
    ['a base of 0 is not written', 0, 0],
  ])('history base, %s', (_, historyBase, expected) => {
    expect(historyBaseOf(roundTrip({}, historyBase === undefined ? {} : { historyBase }))).toBe(expected);
  });

  test('the last error is kept short in the file', () => {
    const loop = roundTrip({}, { lastOutcome: 'hard-failure', lastError: 'x'.repeat(1000) });
    expect(String(loop.checkpoint?.state_data?.['last_error'])).toHaveLength(300);
    expect(loop.checkpoint?.state_data?.['last_outcome']).toBe('hard-failure');
  });
});

describe('a checkpoint another program mangled, or an older wiggum wrote', () => {
  const loopWith = (stateData: Record<string, unknown>): PersistenceLoop =>
    ({ status: 'running', iteration: 3, checkpoint: { state_data: stateData } }) as unknown as PersistenceLoop;

  test.each<[string, Record<string, unknown>, Partial<LoopState>]>([
    [
      'negative and fractional counters',
      { attempt: -2, no_progress: 2.7, active_ms: 'soon' },
      { attempt: 0, noProgressStreak: 2, activeMs: 0 },
    ],
    ['warned only when exactly true', { warned: 'yes' }, { warned: false }],
    ['an unparseable outage time', { waiting_since: 'yesterday' }, { waitingSinceMs: null }],
    [
      'totals that are not numbers',
      { spent: { input_tokens: 'many', cost_usd: -1 } },
      { spent: { ...NOTHING_SPENT, costUsd: null } },
    ],
    [
      'peak memory in bytes, as older checkpoints wrote it',
      { spent: { peak_rss_bytes: 1024 } },
      { spent: { ...NOTHING_SPENT, costUsd: null, peakRssBytes: 1024 } },
    ],
  ])('%s: read safely', (_, stateData, expected) => {
    expect(loopStateFromCheckpoint(loopWith(stateData), MAX)).toEqual({ ...fresh, iteration: 3, ...expected });
  });

  test('a checkpoint without totals: what the current run spent is summed from its history lines', () => {
    const line = (inputTokens: number): IterationRecord =>
      ({
        iteration: 1,
        usage: { inputTokens, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        durationMs: 10,
      }) as unknown as IterationRecord;
    const loop = loopWith({ history_base: 1 });
    // The first line belongs to a run before the task was sent back: not counted.
    expect(spentOfTask(loop, [line(1000), line(5), line(7)]).inputTokens).toBe(12);
  });
});
