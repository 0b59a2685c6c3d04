import { describe, expect, test } from 'vitest';
import {
  FIRST_PID_AFTER_WRAP,
  inPidWindow,
  parsePidCounters,
  pidsInWindow,
  runPidWindow,
} from '../../src/harness/pid-window.js';
import type { PidCounters } from '../../src/harness/pid-window.js';

const PID_MAX = 32_768;
const before: PidCounters = { forks: 1_000, tasks: 400, lastPid: 5_000 };
const after = (forks: number, lastPid: number): PidCounters => ({ forks: before.forks + forks, tasks: 420, lastPid });

describe('runPidWindow', () => {
  test.each([
    ['an agent that started nothing: its own pid only', 5_001, after(1, 5_001), { from: 5_001, to: 5_001 }],
    ['children and others since: leader to the last pid', 5_003, after(40, 5_060), { from: 5_003, to: 5_060 }],
    ['the counter wrapped past pid_max: the window goes round', 32_700, after(200, 450), { from: 32_700, to: 450 }],
    ['no fork counted since the reading before the spawn: the counters make no sense', 5_001, after(0, 5_001), null],
    ['a fork counter that went back (another boot, a bad read)', 5_001, after(-3, 5_001), null],
    [
      'as many pids created as could fill one turn, skips counted: any pid can be the run',
      5_001,
      after(16_100, 4_000),
      null,
    ],
    ['a leader pid past pid_max (lowered since)', 40_000, after(1, 40_000), null],
    ['a last pid past pid_max', 5_001, after(1, 40_000), null],
  ])('%s', (_why, leaderPid, now, window) => {
    expect(runPidWindow(leaderPid, before, now, PID_MAX)).toEqual(window);
  });

  test('just short of one turn the window holds; one more and it does not', () => {
    // created + tasks before + created < pid_max − 300
    const longest = Math.floor((PID_MAX - 300 - before.tasks - 1) / 2);
    expect(runPidWindow(5_001, before, after(longest, 4_000), PID_MAX)).not.toBeNull();
    expect(runPidWindow(5_001, before, after(longest + 1, 4_000), PID_MAX)).toBeNull();
  });
});

describe('inPidWindow', () => {
  test.each([
    [{ from: 100, to: 200 }, 100, true],
    [{ from: 100, to: 200 }, 200, true],
    [{ from: 100, to: 200 }, 99, false],
    [{ from: 100, to: 200 }, 201, false],
    [{ from: 32_700, to: 450 }, 32_767, true],
    [{ from: 32_700, to: 450 }, 301, true],
    [{ from: 32_700, to: 450 }, 451, false],
    [{ from: 32_700, to: 450 }, 32_699, false],
  ])('%o holds %i: %s', (window, pid, holds) => {
    expect(inPidWindow(window, pid)).toBe(holds);
  });
});

describe('parsePidCounters', () => {
  const stat = 'cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 12 0 3\nctxt 99\nbtime 1\nprocesses 1329992\nprocs_running 3\n';
  test.each([
    ['as Linux writes them', stat, '7.77 5.16 3.66 5/182 5181\n', { forks: 1_329_992, tasks: 182, lastPid: 5_181 }],
    ['no processes line', 'cpu 1 2 3\n', '7.77 5.16 3.66 5/182 5181\n', null],
    ['a loadavg of another shape', stat, '7.77 5.16 3.66\n', null],
  ])('%s', (_why, statText, loadavg, counters) => {
    expect(parsePidCounters(statText, loadavg)).toEqual(counters);
  });
});

describe('pidsInWindow: the pids of a short window, as inPidWindow has them', () => {
  const windows = [
    { from: 5_001, to: 5_001 },
    { from: 5_001, to: 5_064 },
    { from: 5_001, to: 5_065 },
    { from: 1, to: 40 },
    { from: 32_740, to: 32_767 },
    { from: 32_740, to: 310 },
    { from: 32_740, to: 335 },
    { from: 32_740, to: 336 },
    { from: 32_767, to: 300 },
    { from: 32_760, to: 100 },
    { from: 300, to: 320 },
  ];
  test.each(windows)('%o', (window) => {
    const tried = pidsInWindow(window, PID_MAX);
    const inWindow: number[] = [];
    for (let pid = 1; pid < PID_MAX; pid += 1) {
      // Once the counter has wrapped it starts again at 300: the pids under it are not handed out again.
      const handedOutSince = window.from <= window.to || pid >= FIRST_PID_AFTER_WRAP;
      if (inPidWindow(window, pid) && handedOutSince) inWindow.push(pid);
    }
    if (inWindow.length > 64) expect(tried).toBeNull();
    else expect([...(tried ?? [])].sort((a, b) => a - b)).toEqual(inWindow);
  });

  test('a longer limit tries more', () => {
    expect(pidsInWindow({ from: 5_001, to: 5_100 }, PID_MAX)).toBeNull();
    expect(pidsInWindow({ from: 5_001, to: 5_100 }, PID_MAX, 100)).toHaveLength(100);
  });
});
