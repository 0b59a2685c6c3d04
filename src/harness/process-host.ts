import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { systemClock } from '../time/clock.js';
import type { Clock } from '../time/clock.js';
import { isProcessGroupAlive, signalGroup } from './group-signals.js';
import { procProcessTable } from './process-tree.js';
import type { ProcessTable } from './process-tree.js';

/** A started child as run-process uses it: piped stdio, a pid, 'exit' and 'error' events. */
export type HostChild = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * Everything the harness layer does to the outside world besides files: start a process, signal
 * and look at a process group, find a run's processes wherever they went, and wait. Passed in
 * beside the clock (as concurrently passes spawn and kill), so the timeout, idle and kill paths
 * can be driven by a test without sleeping or reading /proc.
 */
export interface ProcessHost {
  /** Starts `command` as the leader of a new process group, never through a shell, stdio piped. */
  spawn(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): HostChild;
  /** Sends `signal` to every process of the group; a group that is already gone is not an error. */
  signalGroup(pgid: number, signal: NodeJS.Signals): void;
  /** Whether a process of the group still runs (zombies do not count). */
  isGroupAlive(pgid: number): boolean;
  /** The processes carrying a run's marker, in or out of its group: sampled while it runs, killed after. */
  processTable: ProcessTable;
  /** Every wait (the run and idle timeouts, the kill grace and its polling, the pipe drain) sleeps on it. */
  clock: Clock;
  /**
   * Milliseconds on a clock that never jumps, for elapsed time (silence, deadlines, durations):
   * `performance.now()` for real, a fake clock's time in tests.
   */
  monotonicNow(): number;
}

/** What stopping a group needs (`killProcessGroup`, `killRecordedHarness`): no spawning. */
export type GroupHost = Pick<ProcessHost, 'signalGroup' | 'isGroupAlive' | 'clock' | 'monotonicNow'>;

/** The real one: node's spawn, kill(2) on the group and on strays, /proc, timers. */
export const systemProcessHost: ProcessHost = {
  // detached: the child calls setsid(), so it leads a group we can signal as a whole.
  spawn: (command, args, options) =>
    spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
    }),
  signalGroup,
  isGroupAlive: isProcessGroupAlive,
  processTable: procProcessTable(() => performance.now()),
  clock: systemClock,
  monotonicNow: () => performance.now(),
};
