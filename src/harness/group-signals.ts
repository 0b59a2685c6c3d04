import { readFileSync, readdirSync } from 'node:fs';
import { systemErrorCode } from '../errors.js';

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
