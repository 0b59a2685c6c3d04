/**
 * Which pids a run's processes can hold. Linux hands out pids in turn, from the last one given up
 * to `pid_max` and then again from 300 (the kernel's RESERVED_PIDS), skipping those in use. Every
 * process of a run descends from its leader, so it got its pid at the leader's spawn or later: it
 * lies between the leader's pid and the last pid handed out, unless the counter went all the way
 * round in between. A look through /proc for the run's marker then reads the environment of the
 * few processes in that window instead of every process on the machine (about 1.5–4 ms after each
 * run on a busy host, as many as there are processes).
 */

/** The first pid the counter takes after it wraps (RESERVED_PIDS in the kernel). */
export const FIRST_PID_AFTER_WRAP = 300;

/** The machine's pid counters at one moment: /proc/stat `processes` and /proc/loadavg's last two fields. */
export interface PidCounters {
  /** Processes and threads created since boot. */
  forks: number;
  /** Processes and threads alive now, each holding a pid. */
  tasks: number;
  /** The last pid handed out. */
  lastPid: number;
}

/** A contiguous run of pids, `from` to `to` inclusive, that may go round: `to < from` wraps past `pid_max`. */
export interface PidWindow {
  from: number;
  to: number;
}

/**
 * The pids a run can hold, from the counters read just before its leader was spawned (`before`)
 * and now; null when any pid can (the counter may have gone all the way round, or the counters
 * make no sense), and every process must be looked at.
 *
 * How far the counter moved is at most one step per pid created (`forks` grew by that many,
 * threads and other users' processes included) plus one per pid it had to skip as in use; a pid
 * in use was either alive before the spawn or created since. While that stays short of one turn,
 * the window from the leader's pid to the last pid handed out holds every pid the run got.
 */
export function runPidWindow(
  leaderPid: number,
  before: PidCounters,
  now: PidCounters,
  pidMax: number,
): PidWindow | null {
  const created = now.forks - before.forks;
  if (!(created >= 1) || leaderPid < 1 || leaderPid >= pidMax || now.lastPid >= pidMax) return null;
  const turn = pidMax - FIRST_PID_AFTER_WRAP;
  const furthestMove = created + before.tasks + created;
  if (furthestMove >= turn) return null;
  return { from: leaderPid, to: now.lastPid };
}

/**
 * How many pids a look would try one by one (`pidsInWindow`) rather than list /proc: a pid that is
 * not there costs a failed open, a listing of /proc a few hundred entries read and filtered.
 */
export const PROBE_LIMIT = 64;

/**
 * The pids of `window`, when it holds at most `limit` that can have been handed out since its
 * leader's spawn; null when it holds more. A window that goes round skips the pids under 300,
 * which the counter never hands out again once it has wrapped (RESERVED_PIDS).
 */
export function pidsInWindow(window: PidWindow, pidMax: number, limit = PROBE_LIMIT): number[] | null {
  const wraps = window.from > window.to;
  const size = wraps
    ? pidMax - window.from + Math.max(0, window.to - FIRST_PID_AFTER_WRAP + 1)
    : window.to - window.from + 1;
  if (size > limit) return null;
  const pids: number[] = [];
  for (let pid = window.from; pid <= (wraps ? pidMax - 1 : window.to); pid += 1) pids.push(pid);
  if (wraps) for (let pid = FIRST_PID_AFTER_WRAP; pid <= window.to; pid += 1) pids.push(pid);
  return pids;
}

export function inPidWindow(window: PidWindow, pid: number): boolean {
  return window.from <= window.to ? pid >= window.from && pid <= window.to : pid >= window.from || pid <= window.to;
}

/** The counters from the text of /proc/stat and /proc/loadavg; null when either is not as Linux writes it. */
export function parsePidCounters(stat: string, loadavg: string): PidCounters | null {
  const forks = /^processes (\d+)$/m.exec(stat)?.[1];
  // "0.61 0.44 0.40 2/345 12345": the running/total scheduling entities, then the last pid.
  const fields = /^\S+ \S+ \S+ \d+\/(\d+) (\d+)\s*$/.exec(loadavg);
  if (forks === undefined || fields === null) return null;
  return { forks: Number(forks), tasks: Number(fields[1]), lastPid: Number(fields[2]) };
}
