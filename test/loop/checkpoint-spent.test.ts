import { describe, expect, test } from 'vitest';
import { checkpointData, loopStateFromCheckpoint, spentOfTask } from '../../src/loop/checkpoint.js';
import { NOTHING_SPENT } from '../../src/memory/spent.js';
import type { PersistenceLoop } from '../../src/task/schema.js';

const loopWith = (spent: Record<string, unknown>): PersistenceLoop =>
  ({
    status: 'running',
    iteration: 1,
    max_iterations: 5,
    checkpoint: { state_data: { spent } },
  }) as unknown as PersistenceLoop;
const MB = 1024 * 1024;

describe('the memory peak in the checkpoint: megabytes a person can read in Obsidian', () => {
  test.each<[string, number, number]>([
    ['62 MB', 65_044_480, 62],
    ['a fraction keeps one decimal', 1.55 * MB, 1.6],
    ['none measured', 0, 0],
  ])('written: %s', (_name, bytes, mb) => {
    const state = { ...loopStateFromCheckpoint(undefined, 5), spent: { ...NOTHING_SPENT, peakRssBytes: bytes } };
    const data = checkpointData({
      status: 'running',
      session: 's',
      state,
      started: '2026-01-07T10:30:00Z',
      nowMs: 0,
      completedSteps: [],
      currentStep: null,
    });
    const spent = (data.checkpoint?.state_data as { spent: Record<string, unknown> }).spent;
    expect(spent['peak_rss_mb']).toBe(mb);
    expect(Object.keys(spent).filter((key) => /bytes/.test(key))).toEqual([]);
  });

  test.each<[string, Record<string, unknown>, number]>([
    ['read back in bytes', { peak_rss_mb: 62 }, 62 * MB],
    ["an older wiggum's checkpoint, in bytes, still reads", { peak_rss_bytes: 65_044_480 }, 65_044_480],
    ['both: the new key wins', { peak_rss_mb: 1, peak_rss_bytes: 5 }, MB],
    ['neither', {}, 0],
    ['nonsense', { peak_rss_mb: 'lots' }, 0],
  ])('%s', (_name, spent, bytes) => {
    expect(
      spentOfTask(loopWith({ input_tokens: 1, output_tokens: 2, agent_ms: 3, cpu_ms: 4, ...spent }), []).peakRssBytes,
    ).toBe(bytes);
  });
});
