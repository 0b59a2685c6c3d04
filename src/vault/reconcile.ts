import type { WaitReason } from '../task/readiness.js';
import { stemOf } from './names.js';
import type { TaskFileEntry, VaultSnapshot } from './scan.js';

/**
 * What the watcher remembers of one task file in Approved/ between two reconciliations.
 * `settling`: seen, not yet handed over (it may still be being written); `active`: handed to the
 * daemon by a `start` or `resume`; `stopped`: settled, but its stop flag holds it.
 */
export interface KnownTask {
  name: string;
  phase: 'settling' | 'active' | 'stopped';
  size: number;
  mtimeMs: number;
  ino: number;
  /** When size, mtime or inode were last seen to change (first sight counts as a change). */
  changedAtMs: number;
  /** When an active or stopped task's file was first found missing; null while it is there. */
  missingSinceMs: number | null;
  firstSeenAtMs: number;
  /**
   * Seen to change after it was first seen: a note being written in place (an editor saving it
   * as its author types), which runs only once it has been quiet for `composeQuietMs`.
   */
  composing: boolean;
  /** Why a settled file does not run (empty, names no harness); null while it may run, is unread or is still settling. */
  waiting: WaitReason | null;
}

/** What the daemon is asked to do. Every action is a consequence of a state change, emitted once. */
export type ReconcileAction =
  /** The file has settled: run it (phase → active). */
  | { kind: 'start'; name: string; path: string }
  /** The stop flag appeared for an active task (phase → stopped). */
  | { kind: 'stop'; name: string }
  /**
   * The stop flag of a stopped task is gone (phase → active). The task may never have run (its
   * flag was there when it settled): the daemon runs it then, from its checkpoint if it has one.
   */
  | { kind: 'resume'; name: string; path: string }
  /**
   * An active or stopped task's file has been missing for longer than `goneGraceMs`: the daemon
   * stops it as 'task-gone'. The task is forgotten; a file by that name later is a new task.
   */
  | { kind: 'gone'; name: string }
  /** `<vault>/STOP` appeared (on) or disappeared (off). */
  | { kind: 'hold'; on: boolean };

export interface ReconcileSettings {
  /** A file must keep its size, mtime and inode this long (and parse) before it starts. */
  settleMs: number;
  /** A file seen changing after it appeared (written in place) must stay unchanged this long. */
  composeQuietMs: number;
  /** A missing active file counts as gone only after this long (editors save by unlink + add). */
  goneGraceMs: number;
  /** A file that does not parse starts anyway (to be rejected with a report) after this long unchanged. */
  malformedGraceMs: number;
  /** Whether `<vault>/STOP` existed at the previous reconciliation. */
  globalStopWas: boolean;
}

export interface ReconcilePlan {
  known: Map<string, KnownTask>;
  actions: ReconcileAction[];
  /** The earliest time a settle or grace period ends, so that one timer can be set; null if none. */
  nextCheckAtMs: number | null;
}

/**
 * Compares what is in Approved/ now with what was known and says what to do. Pure: the inputs are
 * not changed, time is `nowMs`. File events only trigger reconciliations; this alone decides.
 */
export function plan(
  snapshot: VaultSnapshot,
  known: ReadonlyMap<string, KnownTask>,
  nowMs: number,
  settings: ReconcileSettings,
): ReconcilePlan {
  const next = new Map<string, KnownTask>();
  const stops: ReconcileAction[] = [];
  const gones: ReconcileAction[] = [];
  const handovers: { task: KnownTask; action: ReconcileAction }[] = [];
  let nextCheckAtMs: number | null = null;
  const checkAt = (atMs: number): void => {
    nextCheckAtMs = nextCheckAtMs === null ? atMs : Math.min(nextCheckAtMs, atMs);
  };

  for (const entry of snapshot.tasks.values()) {
    const before = known.get(entry.name);
    if (before === undefined || before.phase === 'settling') {
      const task: KnownTask = { ...observed(before, entry, nowMs, settings), waiting: null };
      const wait = waitingOf(before, task, entry);
      const settled = settleCheck(task, entry.parses, wait, nowMs, settings);
      if (settled === 'waiting') {
        next.set(entry.name, { ...task, waiting: wait });
        // A task held until its not_before: read again then, when it may start.
        if (typeof wait === 'object' && wait?.kind === 'not-before') checkAt(wait.atMs);
      } else if (settled === 'settled') {
        if (snapshot.stopFlags.has(stemOf(entry.name))) {
          next.set(entry.name, { ...task, phase: 'stopped' });
        } else {
          const active: KnownTask = { ...task, phase: 'active' };
          next.set(entry.name, active);
          handovers.push({ task: active, action: { kind: 'start', name: entry.name, path: entry.path } });
        }
      } else {
        next.set(entry.name, task);
        checkAt(settled.checkAtMs);
      }
      continue;
    }
    const task = observed(before, entry, nowMs, settings);
    const flagged = snapshot.stopFlags.has(stemOf(entry.name));
    if (task.phase === 'active' && flagged) {
      next.set(entry.name, { ...task, phase: 'stopped' });
      stops.push({ kind: 'stop', name: entry.name });
    } else if (task.phase === 'stopped' && !flagged) {
      const active: KnownTask = { ...task, phase: 'active' };
      next.set(entry.name, active);
      handovers.push({ task: active, action: { kind: 'resume', name: entry.name, path: entry.path } });
    } else {
      next.set(entry.name, task);
    }
  }

  for (const task of known.values()) {
    if (snapshot.tasks.has(task.name)) continue;
    // A settling file that vanished was never handed over: forget it.
    if (task.phase === 'settling') continue;
    // Still there, but with another hard link (wiggum's own move, a backup tool): not gone.
    if (snapshot.linked.has(task.name)) {
      next.set(task.name, { ...task, missingSinceMs: null });
      continue;
    }
    const missingSinceMs = task.missingSinceMs ?? nowMs;
    if (nowMs - missingSinceMs >= settings.goneGraceMs) {
      gones.push({ kind: 'gone', name: task.name });
      continue;
    }
    next.set(task.name, { ...task, missingSinceMs });
    checkAt(missingSinceMs + settings.goneGraceMs);
  }

  const actions: ReconcileAction[] = [];
  if (snapshot.globalStop !== settings.globalStopWas) actions.push({ kind: 'hold', on: snapshot.globalStop });
  actions.push(...stops.sort(byName), ...gones.sort(byName));
  actions.push(...handovers.sort((a, b) => firstComeFirst(a.task, b.task)).map((handover) => handover.action));
  return { known: next, actions, nextCheckAtMs };
}

/** Forgets a task whose run has ended (moved to Done/ or Rejected/). Call it after the move: a file
 * still in Approved/ by that name (the user put it back) is then picked up as a new task. */
export function markFinished(known: ReadonlyMap<string, KnownTask>, name: string): Map<string, KnownTask> {
  const next = new Map(known);
  next.delete(name);
  return next;
}

/** Records that a task's run ended because of its stop flag, so that removing the flag resumes it. */
export function markStopped(known: ReadonlyMap<string, KnownTask>, name: string): Map<string, KnownTask> {
  const task = known.get(name);
  const next = new Map(known);
  if (task !== undefined && task.phase !== 'settling') next.set(name, { ...task, phase: 'stopped' });
  return next;
}

/** The known task updated with what the scan saw now (a first sight counts as a change). */
function observed(
  before: KnownTask | undefined,
  entry: TaskFileEntry,
  nowMs: number,
  settings: ReconcileSettings,
): KnownTask {
  if (before === undefined) {
    // The file last changed at its mtime, which may be a little before it was first seen (the
    // event debounce, the scan): count the settle window from there, but watch at least half of
    // it ourselves, since a copy may carry an old mtime while it is still being written.
    const changedAtMs = Math.max(Math.min(nowMs, entry.mtimeMs), nowMs - settings.settleMs / 2);
    return {
      name: entry.name,
      phase: 'settling',
      size: entry.size,
      mtimeMs: entry.mtimeMs,
      ino: entry.ino,
      changedAtMs,
      missingSinceMs: null,
      firstSeenAtMs: nowMs,
      composing: false,
      waiting: null,
    };
  }
  const changed = before.size !== entry.size || before.mtimeMs !== entry.mtimeMs || before.ino !== entry.ino;
  if (!changed) return before.missingSinceMs === null ? before : { ...before, missingSinceMs: null };
  // A change before the file was handed over: it is being written where it lies (saved in place, or
  // replaced by an editor's swap file under the same name), so it waits for the author to stop.
  const composing = before.composing || before.phase === 'settling';
  return {
    ...before,
    size: entry.size,
    mtimeMs: entry.mtimeMs,
    ino: entry.ino,
    changedAtMs: nowMs,
    missingSinceMs: null,
    composing,
  };
}

/** What a settling file waits for: this scan's reading of it, else the last one while it is unchanged. */
function waitingOf(before: KnownTask | undefined, task: KnownTask, entry: TaskFileEntry): WaitReason | null {
  if (entry.parses !== null) return entry.wait ?? null;
  return before !== undefined && before.changedAtMs === task.changedAtMs ? before.waiting : null;
}

/**
 * Whether a settling file may be handed over. It must be unchanged for `settleMs` (for a file being
 * composed in place, `composeQuietMs`) and parse; a file that does not parse waits
 * `malformedGraceMs` unchanged (a half-written file is neither run nor rejected early); a file not
 * read by this scan (`parses: null`) asks for a read at once; one with a wait reason waits until it
 * changes, or, held by the order of work, until the next reconciliation finds its wait over (a
 * not_before arms a timer in `plan`).
 */
function settleCheck(
  task: KnownTask,
  parses: boolean | null,
  wait: WaitReason | null,
  nowMs: number,
  settings: ReconcileSettings,
): 'settled' | 'waiting' | { checkAtMs: number } {
  const quietMs = task.composing ? Math.max(settings.settleMs, settings.composeQuietMs) : settings.settleMs;
  const settleAtMs = task.changedAtMs + quietMs;
  if (nowMs < settleAtMs) return { checkAtMs: settleAtMs };
  if (parses === null) return { checkAtMs: nowMs };
  if (wait !== null) return 'waiting';
  if (parses) return 'settled';
  const malformedAtMs = task.changedAtMs + Math.max(quietMs, settings.malformedGraceMs);
  return nowMs < malformedAtMs ? { checkAtMs: malformedAtMs } : 'settled';
}

/** True when a settling task has been unchanged long enough that this scan should read it. */
export function isDueForRead(task: KnownTask | undefined, nowMs: number, settleMs: number): boolean {
  return task !== undefined && task.phase === 'settling' && nowMs >= task.changedAtMs + settleMs;
}

function firstComeFirst(a: KnownTask, b: KnownTask): number {
  return a.firstSeenAtMs - b.firstSeenAtMs || a.mtimeMs - b.mtimeMs || compareNames(a.name, b.name);
}

function byName(a: ReconcileAction, b: ReconcileAction): number {
  return compareNames('name' in a ? a.name : '', 'name' in b ? b.name : '');
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
