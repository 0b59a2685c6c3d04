import { describe, expect, test } from 'vitest';
import type { MarkedProcess } from '../../src/harness/process-tree.js';
import { TreeUsage } from '../../src/harness/tree-usage.js';

const MB = 1024 * 1024;

/** One process as a sample shows it; start time = pid unless a test reuses a pid. */
function proc(
  pid: number,
  ppid: number,
  cpuMs: number,
  reapedChildrenCpuMs = 0,
  more: Partial<MarkedProcess> = {},
): MarkedProcess {
  return { pid, ppid, startTicks: pid, cpuMs, reapedChildrenCpuMs, rssBytes: 0, peakRssBytes: 0, ...more };
}

/** The usage after the given samples, in order. */
function after(...samples: MarkedProcess[][]): { cpuMs: number; peakRssBytes: number } {
  const usage = new TreeUsage();
  for (const sample of samples) usage.add(sample);
  return usage.usage();
}

// pid 1000 is the leader (its parent, wiggum, is pid 1 here: not marked); 1001, 1002 its children.
describe('TreeUsage: the CPU time of a run from samples', () => {
  test('nothing seen is nothing used', () => {
    expect(after()).toEqual({ cpuMs: 0, peakRssBytes: 0 });
    expect(after([])).toEqual({ cpuMs: 0, peakRssBytes: 0 });
  });

  test('each process counts with the most it was seen to use, also once it has exited', () => {
    const usage = after(
      [proc(1000, 1, 100), proc(1001, 1000, 50)],
      [proc(1000, 1, 300), proc(1001, 1000, 200)],
      [proc(1000, 1, 400)],
    );
    // 1001 left without its parent waiting for it (yet): its own 200 stand.
    expect(usage.cpuMs).toBe(400 + 200);
  });

  test('a child that lived and died between two samples counts through its parent’s reaped time', () => {
    expect(after([proc(1000, 1, 100)], [proc(1000, 1, 150, 700)]).cpuMs).toBe(150 + 700);
  });

  test('a child seen, then reaped by its parent, is not counted twice', () => {
    // 1001 was seen at 300 ms; it ended at 500 ms, which the parent's reaped time holds.
    const usage = after([proc(1000, 1, 100), proc(1001, 1000, 300)], [proc(1000, 1, 120, 500)]);
    expect(usage.cpuMs).toBe(120 + 500);
  });

  test('a child gone but not yet waited for (a zombie) still counts with what was seen of it', () => {
    const usage = after([proc(1000, 1, 100), proc(1001, 1000, 300)], [proc(1000, 1, 120, 0)]);
    expect(usage.cpuMs).toBe(120 + 300);
  });

  test('seen and unseen children of one parent: its reaped time holds both, and is counted once', () => {
    const usage = after(
      [proc(1000, 1, 100), proc(1001, 1000, 200)],
      // 1001 ended at 250; 1002 ran 400 between the samples; 1003 runs on.
      [proc(1000, 1, 110, 650), proc(1003, 1000, 80)],
    );
    expect(usage.cpuMs).toBe(110 + 650 + 80);
  });

  test('a parent and its child gone in one interval, both reaped up the tree: no double count', () => {
    // 1000 → 1001 → 1002. Between the samples 1001 reaps 1002 (at 300) and exits (own 100); 1000 reaps 1001.
    const usage = after(
      [proc(1000, 1, 50), proc(1001, 1000, 60), proc(1002, 1001, 200)],
      [proc(1000, 1, 50, 100 + 300)],
    );
    expect(usage.cpuMs).toBe(50 + 400);
  });

  test('a child reparented away from its parent counts on its own', () => {
    // 1001 (seen with 40 reaped) exits; its child 1002 goes to init (pid 1) and later ends unseen by any parent.
    const usage = after(
      [proc(1000, 1, 10), proc(1001, 1000, 20, 40), proc(1002, 1001, 30)],
      [proc(1000, 1, 10, 60), proc(1002, 1, 90)],
      [proc(1000, 1, 10, 60)],
    );
    expect(usage.cpuMs).toBe(10 + 60 + 90);
  });

  test('a pid used again by another process counts as two processes', () => {
    const usage = after(
      [proc(1000, 1, 10), proc(1001, 1000, 100)],
      [proc(1000, 1, 10), proc(1001, 1, 30, 0, { startTicks: 999_999 })],
    );
    expect(usage.cpuMs).toBe(10 + 100 + 30);
  });
});

describe('TreeUsage: the peak memory of a run', () => {
  test('the largest sum of resident sets over one sample', () => {
    const usage = after(
      [
        proc(1000, 1, 0, 0, { rssBytes: 40 * MB, peakRssBytes: 40 * MB }),
        proc(1001, 1000, 0, 0, { rssBytes: 30 * MB, peakRssBytes: 30 * MB }),
      ],
      [proc(1000, 1, 0, 0, { rssBytes: 45 * MB, peakRssBytes: 45 * MB })],
    );
    expect(usage.peakRssBytes).toBe(70 * MB);
  });

  test('or the peak of a single process, when it was higher than any sample saw', () => {
    // 1001 reached 200 MB between the samples and came down again.
    const usage = after([
      proc(1000, 1, 0, 0, { rssBytes: 40 * MB, peakRssBytes: 40 * MB }),
      proc(1001, 1000, 0, 0, { rssBytes: 30 * MB, peakRssBytes: 200 * MB }),
    ]);
    expect(usage.peakRssBytes).toBe(200 * MB);
  });
});
