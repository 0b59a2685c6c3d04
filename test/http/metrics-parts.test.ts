import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { TaskEntry } from '../../src/daemon/status.js';
import { viewOfEntries } from '../helpers/picture-view.js';
import type { IterationRecord } from '../../src/memory/history.js';
import { outcomeLabel, runFigures } from '../../src/http/metric-record.js';
import type { RunFigures } from '../../src/http/metric-record.js';
import { countDaemonStart, parseStarts, startsFile } from '../../src/http/metric-starts.js';
import { OverheadTimes, PickupTimes } from '../../src/http/metric-timing.js';
import { queueFigures, uptimeSeconds } from '../../src/http/metric-view.js';
import { tempDir } from '../helpers/temp-dir.js';

function record(more: Partial<IterationRecord> = {}): IterationRecord {
  return {
    iteration: 1,
    attempt: 0,
    startedAt: '2026-01-01T00:00:00Z',
    endedAt: '2026-01-01T00:00:05Z',
    durationMs: 5000,
    harness: 'demo',
    exitCode: 0,
    signal: null,
    outcome: 'continue',
    completionFound: false,
    storiesPassing: 0,
    storiesTotal: 1,
    action: 'continue',
    nextState: 'next iteration',
    ...more,
  };
}

const plain: RunFigures = {
  harness: 'demo',
  outcome: 'continue',
  countsAsIteration: true,
  retried: false,
  refusedClaim: false,
  tokens: null,
  costUsd: null,
  cpuSeconds: null,
};

describe('a history line → what it adds to the counters', () => {
  test.each<[string, Partial<IterationRecord>, Partial<RunFigures>]>([
    ['a run that goes on', {}, {}],
    [
      'an accepted claim',
      { outcome: 'complete', completionFound: true, completionAccepted: true, action: 'done' },
      { outcome: 'complete' },
    ],
    [
      'a refused claim',
      { outcome: 'refused', completionFound: true, completionAccepted: false, refusal: 'US-001 fails' },
      { outcome: 'refused', refusedClaim: true },
    ],
    ['a failed run the loop goes on after', { outcome: 'nonzero-exit', exitCode: 1 }, { outcome: 'nonzero-exit' }],
    [
      'a transient failure, retried',
      { outcome: 'transient', exitCode: 75, action: 'retry' },
      { outcome: 'transient', countsAsIteration: false, retried: true },
    ],
    [
      'a transient failure past the retries',
      { outcome: 'transient', exitCode: 75, action: 'reject' },
      { outcome: 'transient', countsAsIteration: false },
    ],
    ['a usage limit', { outcome: 'usage-limit', action: 'wait' }, { outcome: 'usage-limit', countsAsIteration: false }],
    ['a hard failure', { outcome: 'hard', action: 'reject' }, { outcome: 'hard', countsAsIteration: false }],
    ['a stop', { outcome: 'stopped', action: 'stop' }, { outcome: 'stopped', countsAsIteration: false }],
    ['a question', { outcome: 'asked', action: 'block' }, { outcome: 'asked', countsAsIteration: false }],
    ['an outcome of a later wiggum', { outcome: 'teleported' }, { outcome: 'other', countsAsIteration: false }],
    ['no harness name', { harness: '' }, { harness: 'unknown' }],
    [
      'usage and resources',
      {
        usage: { inputTokens: 1200, outputTokens: 340, cacheReadTokens: 800, cacheWriteTokens: 20, costUsd: 0.0125 },
        resources: { cpuMs: 2500, peakRssBytes: 1 << 20 },
      },
      { tokens: { input: 1200, output: 340, cacheRead: 800, cacheWrite: 20 }, costUsd: 0.0125, cpuSeconds: 2.5 },
    ],
    [
      'usage without a cost',
      { usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      { tokens: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 }, costUsd: null },
    ],
    [
      'figures no counter can take (a line written by hand)',
      {
        usage: { inputTokens: -5, outputTokens: Number.NaN, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: -1 },
        resources: { cpuMs: Number.POSITIVE_INFINITY, peakRssBytes: 0 },
      },
      { tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, costUsd: 0, cpuSeconds: 0 },
    ],
  ])('%s', (_, line, expected) => {
    expect(runFigures(record(line))).toEqual({ ...plain, ...expected });
  });

  test('every outcome the loop writes is a label of its own; anything else is other', () => {
    for (const name of ['complete', 'refused', 'continue', 'nonzero-exit', 'transient', 'usage-limit', 'hard'])
      expect(outcomeLabel(name)).toBe(name);
    expect(outcomeLabel('stopped')).toBe('stopped');
    expect(outcomeLabel('asked')).toBe('asked');
    expect(outcomeLabel('')).toBe('other');
    expect(outcomeLabel('Complete')).toBe('other');
  });
});

function task(phase: TaskEntry['phase'], sinceMs = 0, more: Partial<TaskEntry> = {}): TaskEntry {
  return {
    id: `${phase}-${sinceMs}`,
    name: `${phase}-${sinceMs}.md`,
    file: `/v/Approved/${phase}-${sinceMs}.md`,
    phase,
    sinceMs,
    ...more,
  };
}

describe('the view → the queue, the uptime', () => {
  test.each<[string, TaskEntry[], number, { depth: number; oldestAgeSeconds: number }]>([
    ['nothing queued', [task('running', 1_000)], 10_000, { depth: 0, oldestAgeSeconds: 0 }],
    [
      'the oldest of the queued, whatever their order',
      [task('queued', 7_000), task('queued', 4_000), task('running', 1_000), task('queued', 9_000)],
      10_000,
      { depth: 3, oldestAgeSeconds: 6 },
    ],
    [
      'a queued task of unknown age counts in the depth, not the age',
      [task('queued', 0), task('queued', 9_500)],
      10_000,
      { depth: 2, oldestAgeSeconds: 0.5 },
    ],
    ['a clock set back: no negative age', [task('queued', 12_000)], 10_000, { depth: 1, oldestAgeSeconds: 0 }],
  ])('queue: %s', (_, tasks, nowMs, expected) => {
    expect(queueFigures(viewOfEntries(tasks), nowMs)).toEqual(expected);
  });

  test('uptime in seconds, never negative', () => {
    expect(uptimeSeconds(1_000, 61_500)).toBe(60.5);
    expect(uptimeSeconds(5_000, 1_000)).toBe(0);
  });
});

describe('pickup and loop overhead timings', () => {
  test('pickup: from the first queueing to the start; a start never queued here, or a task settled first, is not measured', () => {
    const pickups = new PickupTimes();
    pickups.queued('a', 1_000);
    pickups.queued('a', 3_000);
    pickups.queued('b', 2_000);
    expect(pickups.started('a', 3_500)).toBe(2.5);
    expect(pickups.started('a', 4_000)).toBeNull();
    expect(pickups.started('elsewhere', 4_000)).toBeNull();
    pickups.forget('b');
    expect(pickups.started('b', 5_000)).toBeNull();
    expect(pickups.size).toBe(0);
  });

  test('overhead: the time around the agent run of the iteration that was seen starting', () => {
    const overheads = new OverheadTimes();
    overheads.iteration('a', 3, 0, 10_000);
    expect(overheads.ended('a', { iteration: 3, attempt: 0, durationMs: 4_000 }, 14_250)).toBe(0.25);
    // A record whose start was not seen (a worker's run, or one begun before this daemon).
    expect(overheads.ended('a', { iteration: 4, attempt: 0, durationMs: 1 }, 20_000)).toBeNull();
    overheads.iteration('a', 4, 1, 20_000);
    expect(overheads.ended('a', { iteration: 4, attempt: 0, durationMs: 1 }, 21_000)).toBeNull();
    // The agent measured on a monotonic clock longer than the wall clock moved: never negative.
    overheads.iteration('b', 1, 0, 30_000);
    expect(overheads.ended('b', { iteration: 1, attempt: 0, durationMs: 2_000 }, 31_000)).toBe(0);
    overheads.iteration('c', 1, 0, 30_000);
    overheads.forget('c');
    // One entry a task at most, kept until its own record, its next iteration or its settling.
    expect(overheads.size).toBe(1);
    overheads.forget('a');
    expect(overheads.size).toBe(0);
  });
});

describe('the count of daemon starts', () => {
  test.each([
    ['3\n', 3],
    ['0', 0],
    ['  12  \n', 12],
    ['', 0],
    ['three', 0],
    ['-4', 0],
    ['1.5', 0],
    ['99999999999999999999', 0],
  ])('%j counts %d', (text, expected) => {
    expect(parseStarts(text)).toBe(expected);
  });

  test('each start adds one, written by an atomic replace; a file edited into nonsense starts over', async () => {
    const state = tempDir('wiggum-starts-');
    expect(await countDaemonStart({ state })).toBe(1);
    expect(await countDaemonStart({ state })).toBe(2);
    expect(readFileSync(startsFile({ state }), 'utf8')).toBe('2\n');
    writeFileSync(startsFile({ state }), 'garbled');
    expect(await countDaemonStart({ state })).toBe(1);
    expect(readdirSync(state)).toEqual(['daemon-starts']);
  });

  test('a starts file that cannot be read is E_WRITE, saying what to do', async () => {
    const state = tempDir('wiggum-starts-');
    // A folder where the file should be: reading it fails with EISDIR, as an unreadable file would.
    mkdirSync(startsFile({ state }));
    const error = await countDaemonStart({ state }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_WRITE' });
    expect((error as Error).message).toMatch(/remove it to count from 0/);
    expect(existsSync(startsFile({ state }))).toBe(true);
  });
});
