import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, readdirSync, readlinkSync } from 'node:fs';
import { systemErrorCode } from '../errors.js';
import { inPidWindow, parsePidCounters, pidsInWindow, runPidWindow } from './pid-window.js';
import type { PidCounters, PidWindow } from './pid-window.js';

/**
 * The environment variable that marks every process of one run. Children inherit it, including the
 * background jobs an agent's shell tool starts in a session of their own (setsid): those leave the
 * run's process group, so a group signal never reaches them, but they keep the marker.
 */
export const RUN_MARKER_VARIABLE = 'WIGGUM_RUN_MARKER';

/**
 * A fresh marker for one run. Random rather than derived from the task and iteration: two wiggums
 * (or a test suite) running the same task must never take each other's processes for their own.
 */
export function newRunMarker(): string {
  return randomUUID();
}

/** One live process carrying a run's marker, as /proc shows it at one moment. */
export interface MarkedProcess {
  pid: number;
  ppid: number;
  /** When it started (field 22 of /proc/<pid>/stat): with the pid it names one process, as pids are reused. */
  startTicks: number;
  /** CPU time it used itself (utime + stime). */
  cpuMs: number;
  /** CPU time of the children it has waited for, and of theirs (cutime + cstime). */
  reapedChildrenCpuMs: number;
  /** Its resident set now (VmRSS). */
  rssBytes: number;
  /** The largest its resident set has been (VmHWM). */
  peakRssBytes: number;
}

/** A run's leader and the pid counters just before it was spawned: its processes got their pids since. */
export interface RunPids {
  leaderPid: number;
  before: PidCounters;
}

/** What run-process needs of the machine's process table: find a run's processes, and signal one. */
export interface ProcessTable {
  /**
   * Every live process whose environment holds exactly `RUN_MARKER_VARIABLE=marker`, other than
   * wiggum itself. Zombies are dead and are left out. null when there is no process table to look
   * in (not Linux, /proc not mounted): nothing about the run can be measured then. With `run`, only
   * the processes whose pids were handed out since its spawn are read (pid-window.ts).
   */
  findMarked(marker: string, run?: RunPids | null): MarkedProcess[] | null;
  /** The pid counters now, read just before a spawn; null when they cannot be read (then every look reads all). */
  pidCounters(): PidCounters | null;
  /** Sends `signal` to one process; one that is gone, or that we may not signal, is not an error. */
  signal(pid: number, signal: NodeJS.Signals): void;
}

/**
 * The unit of the times in /proc/<pid>/stat. It is USER_HZ, which the kernel fixes at 100 on every
 * architecture Linux runs on for exactly this interface (sysconf(_SC_CLK_TCK)), whatever the
 * scheduler's own tick rate; node has no sysconf to ask.
 */
const MS_PER_CLOCK_TICK = 1000 / 100;

/** How old a reading of the pid counters may be to stand for the counters before a spawn. */
const REUSE_MS = 1_000;

/**
 * The real one: /proc on Linux, kill(2). With `monotonicNow`, the counters before a spawn are the
 * last ones a look read, while they are under REUSE_MS old: any reading taken before the spawn will
 * do, since every pid of the run is handed out after it, and the forks counted since an earlier
 * reading are more, which only makes the bound on the counter's move looser (pid-window.ts). In a
 * quick loop that is the reading of the look after the previous run, a millisecond before.
 */
export function procProcessTable(monotonicNow?: () => number): ProcessTable {
  let last: { counters: PidCounters; atMs: number } | null = null;
  const read = (): PidCounters | null => {
    const counters = readPidCounters();
    if (counters !== null && monotonicNow !== undefined) last = { counters, atMs: monotonicNow() };
    return counters;
  };
  return {
    findMarked: (marker, run) => (process.platform === 'linux' ? scanProc(marker, run ?? null, read) : null),
    pidCounters: () => {
      if (process.platform !== 'linux' || !procIsOurs()) return null;
      if (last !== null && monotonicNow !== undefined && monotonicNow() - last.atMs < REUSE_MS) return last.counters;
      return read();
    },
    signal: signalProcess,
  };
}

/** The real one, reading the counters afresh each time they are asked for. */
export const systemProcessTable: ProcessTable = procProcessTable();

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  // kill(0) and kill(-1) would reach our own group or every process: never from a bad pid.
  if (!Number.isSafeInteger(pid) || pid <= 1 || pid === process.pid) return;
  try {
    process.kill(pid, signal);
  } catch (error) {
    const code = systemErrorCode(error);
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}

/**
 * A read of /proc/<pid>/… fails for reasons of that process: it exited while we looked (ENOENT,
 * ESRCH), it belongs to another user (EACCES), it is a kernel thread (ESRCH on some kernels). Such a
 * process is skipped. These failures are ours instead, and would hide every process alike: the
 * look as a whole failed.
 */
const OUR_OWN_FAILURES = new Set(['EMFILE', 'ENFILE', 'ENOMEM']);

function scanProc(marker: string, run: RunPids | null, read: () => PidCounters | null): MarkedProcess[] | null {
  const entry = Buffer.from(`${RUN_MARKER_VARIABLE}=${marker}`);
  const found: MarkedProcess[] = [];
  try {
    for (const pid of pidsToRead(run, read)) {
      if (pid === process.pid) continue;
      try {
        if (!holdsEntry(readProcFile(`/proc/${pid}/environ`), entry)) continue;
        const marked = readMarked(pid);
        if (marked !== null) found.push(marked);
      } catch (error) {
        if (OUR_OWN_FAILURES.has(systemErrorCode(error) ?? '')) throw error;
      }
    }
  } catch {
    return null;
  }
  return found;
}

/**
 * The pids whose environment a look reads: every pid of a short window, tried one by one (most are
 * gone: a failed open each); else the listing of /proc, narrowed to the run's window when there is
 * one. Trying pids finds threads as well as processes, which `readMarked` leaves out.
 */
function pidsToRead(run: RunPids | null, read: () => PidCounters | null): number[] {
  const short = run === null ? null : pidWindowOf(run, read);
  const probed = short === null ? null : pidsInWindow(short, pidMax());
  if (probed !== null) return probed;
  const names = readdirSync('/proc');
  // Read after the listing, so every process listed got its pid before the counters were read.
  const window = run === null ? null : pidWindowOf(run, read);
  const pids: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (window === null || inPidWindow(window, pid)) pids.push(pid);
  }
  return pids;
}

/** Reused by every read of an environment: a look reads one per process on the machine. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * The whole of a /proc file, in `scratch` (valid until the next call). Cheaper than readFileSync,
 * which allocates per file and asks its size first (always 0 in /proc).
 */
function readProcFile(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    let length = 0;
    for (;;) {
      const read = readSync(fd, scratch, length, scratch.length - length, null);
      if (read === 0) return scratch.subarray(0, length);
      length += read;
      if (length === scratch.length) scratch = Buffer.concat([scratch, Buffer.allocUnsafe(scratch.length)]);
    }
  } finally {
    closeSync(fd);
  }
}

/** Whether the NUL-separated environment block `environ` holds `entry` as one whole variable. */
function holdsEntry(environ: Buffer, entry: Buffer): boolean {
  for (let at = environ.indexOf(entry); at !== -1; at = environ.indexOf(entry, at + 1)) {
    const end = at + entry.length;
    if ((at === 0 || environ[at - 1] === 0) && (end === environ.length || environ[end] === 0)) return true;
  }
  return false;
}

/** The figures of one process, or null for a zombie or a thread (a pid tried that is no process's). Throws when it is gone. */
function readMarked(pid: number): MarkedProcess | null {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  if (state === 'Z' || state === 'X') return null;
  const ticks = (index: number): number => Number(fields[index] ?? 0) * MS_PER_CLOCK_TICK;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  if (statusNumber(status, 'Tgid') !== pid) return null;
  return {
    pid,
    ppid: Number(fields[1]),
    startTicks: Number(fields[19]),
    cpuMs: ticks(11) + ticks(12),
    reapedChildrenCpuMs: ticks(13) + ticks(14),
    rssBytes: statusKilobytes(status, 'VmRSS') * 1024,
    peakRssBytes: statusKilobytes(status, 'VmHWM') * 1024,
  };
}

/** A "Name:   1234 kB" line of /proc/<pid>/status; 0 when it is missing (a kernel thread has none). */
function statusKilobytes(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
  return match === null ? 0 : Number(match[1]);
}

/** A "Name:   1234" line of /proc/<pid>/status; null when it is missing. */
function statusNumber(status: string, name: string): number | null {
  const match = new RegExp(`^${name}:\\s+(\\d+)$`, 'm').exec(status);
  return match === null ? null : Number(match[1]);
}

function pidWindowOf(run: RunPids, read: () => PidCounters | null): PidWindow | null {
  const now = read();
  return now === null ? null : runPidWindow(run.leaderPid, run.before, now, pidMax());
}

function readPidCounters(): PidCounters | null {
  try {
    return parsePidCounters(readFileSync('/proc/stat', 'latin1'), readFileSync('/proc/loadavg', 'latin1'));
  } catch {
    return null;
  }
}

let cachedPidMax: number | null = null;

/** /proc/sys/kernel/pid_max; 0 (no window is ever trusted) when it cannot be read. */
function pidMax(): number {
  if (cachedPidMax === null) {
    try {
      cachedPidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'latin1').trim()) || 0;
    } catch {
      cachedPidMax = 0;
    }
  }
  return cachedPidMax;
}

let procOurs: boolean | null = null;

/**
 * Whether the /proc mounted here shows our own pid namespace: /proc/loadavg counts pids in ours,
 * the listing shows the mount's, and a window is only sound when the two are the same.
 */
function procIsOurs(): boolean {
  if (procOurs === null) {
    try {
      procOurs = readlinkSync('/proc/self') === String(process.pid);
    } catch {
      procOurs = false;
    }
  }
  return procOurs;
}
