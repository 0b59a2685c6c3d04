import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { systemClock } from '../time/clock.js';
import { isProcessGroupAlive, signalGroup } from './process-group.js';
import type { GroupHost } from './process-group.js';

/** A started child as run-process uses it: piped stdio, a pid, 'exit' and 'error' events. */
export type HostChild = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * Everything the harness layer does to the outside world besides files: start a process, signal
 * and look at a process group, and wait. Passed in beside the clock (as concurrently passes spawn
 * and kill), so the timeout, idle and kill paths can be driven by a test without sleeping.
 */
export interface ProcessHost extends GroupHost {
  /** Starts `command` as the leader of a new process group, never through a shell, stdio piped. */
  spawn(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): HostChild;
  /** Every wait (timeouts, the idle timer, the kill grace, the pipe drain) is a sleep on `clock`. */
  /** Milliseconds on a monotonic clock, for durations. */
  monotonicNow(): number;
}

export const systemProcessHost: ProcessHost = {
  // detached: the child calls setsid(), so it leads a group we can signal as a whole.
  spawn: (command, args, options) => spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'], shell: false }),
  signalGroup,
  isGroupAlive: isProcessGroupAlive,
  clock: systemClock,
  monotonicNow: () => performance.now(),
};
