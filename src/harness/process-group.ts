import { readFileSync, readdirSync } from 'node:fs';
import { systemErrorCode } from '../errors.js';
import { systemClock } from '../time/clock.js';
import type { Clock } from '../time/clock.js';

/** How often a dying group is looked at. Short: this is how long a finished run waits for nothing. */
const POLL_MS = 20;
/**
 * How long to wait for a group to empty after SIGKILL. SIGKILL cannot be ignored, but a process
 * stuck in uninterruptible I/O dies only when the I/O returns; past this we give up waiting.
 */
const KILL_CONFIRM_MS = 5_000;

/**
 * Whether any process of the group `pgid` is still running. Zombies do not count: they are dead
 * and hold nothing. That matters because `kill(-pgid, 0)` succeeds for a zombie, and an orphaned
 * grandchild is reparented to pid 1, which in some containers never reaps it.
 */
export function isProcessGroupAlive(pgid: number): boolean {
  if (!isSafeGroupId(pgid)) return false;
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    // EPERM: members exist that we may not signal (they changed user); they are alive all the same.
    return systemErrorCode(error) === 'EPERM';
  }
  return process.platform === 'linux' ? (hasRunningMember(pgid) ?? true) : true;
}

/**
 * Stops every process of the group `pgid`: SIGTERM, up to `graceMs` to exit, then SIGKILL, and waits
 * until the group is empty. Returns whether anything was alive to stop. Used for a run's own stops,
 * for what a harness leaves behind, and for a harness left running by a wiggum that crashed (its pid
 * was recorded at spawn).
 */
export async function killProcessGroup(pgid: number, graceMs: number, host: GroupHost = systemGroupHost()): Promise<boolean> {
  if (!host.isGroupAlive(pgid)) return false;
  host.signalGroup(pgid, 'SIGTERM');
  if (!(await waitForGroupExit(pgid, graceMs, host))) {
    host.signalGroup(pgid, 'SIGKILL');
    await waitForGroupExit(pgid, KILL_CONFIRM_MS, host);
  }
  return true;
}

/** What stopping a group needs: signals, a look at the group, and a clock to wait on (ProcessHost has all three). */
export interface GroupHost {
  signalGroup(pgid: number, signal: NodeJS.Signals): void;
  isGroupAlive(pgid: number): boolean;
  clock: Clock;
}

function systemGroupHost(): GroupHost {
  return { signalGroup, isGroupAlive: isProcessGroupAlive, clock: systemClock };
}

/** Sends `signal` to the whole group; a group that is already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  if (!isSafeGroupId(pgid)) return;
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    const code = systemErrorCode(error);
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}

/**
 * `kill(-0)` would signal our own group and `kill(-1)` every process we may signal: a bad pid read
 * from a damaged record must never turn into either.
 */
function isSafeGroupId(pgid: number): boolean {
  return Number.isSafeInteger(pgid) && pgid > 1 && pgid !== process.pid;
}

async function waitForGroupExit(pgid: number, timeoutMs: number, host: GroupHost): Promise<boolean> {
  const deadline = host.clock.now() + timeoutMs;
  while (host.isGroupAlive(pgid)) {
    const left = deadline - host.clock.now();
    if (left <= 0) return false;
    await host.clock.sleep(Math.min(POLL_MS, left));
  }
  return true;
}

/**
 * Linux only: looks through /proc for a member of the group that is not a zombie. `undefined` when
 * /proc cannot be read, so the caller falls back to what kill() said.
 */
function hasRunningMember(pgid: number): boolean | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    if (Number(fields[2]) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}
