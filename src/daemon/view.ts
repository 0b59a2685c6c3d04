import { lstat, readFile, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { systemErrorCode } from '../errors.js';
import { readTaskState } from '../task/state.js';
import type { TaskStateView } from '../task/state.js';
import type { VaultLayout } from '../vault/layout.js';
import { stopFlagFor } from '../vault/layout.js';
import { flagStemOf, isStopFlagName, isTaskFileName, stemOf } from '../vault/names.js';
import { isLockOwnerAlive, readLockOwner } from '../lock/owner-lock.js';
import { readRecent } from './recent.js';
import type { AuthorWait, DaemonStatus, FinishedEntry, TaskEntry } from './status.js';

/** Everything `wiggum status` and Dashboard.md show, from the daemon's live status or the files. */
export interface VaultView {
  counts: { approved: number; done: number; rejected: number };
  daemon: { pid: number; lifecycle: DaemonStatus['lifecycle']; startedAtMs: number; concurrency: number } | null;
  held: boolean;
  tasks: TaskEntry[];
  /** Files in Approved/ that wait for their author (a running daemon's view only). */
  waitingForAuthor: AuthorWait[];
  recent: FinishedEntry[];
  updatedAtMs: number;
}

/** Task files in a folder (as the scan sees them: no temp files, no conflict copies); a missing folder counts 0. */
async function countTasks(folder: string): Promise<number> {
  try {
    return (await readdir(folder)).filter(isTaskFileName).length;
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return 0;
    throw error;
  }
}

export async function folderCounts(layout: VaultLayout): Promise<VaultView['counts']> {
  const [approved, done, rejected] = await Promise.all([countTasks(layout.approved), countTasks(layout.done), countTasks(layout.rejected)]);
  return { approved, done, rejected };
}

/** The view a running daemon holds, with fresh folder counts. */
export function viewFromStatus(status: DaemonStatus, counts: VaultView['counts']): VaultView {
  return {
    counts,
    daemon: { pid: status.pid, lifecycle: status.lifecycle, startedAtMs: status.startedAtMs, concurrency: status.concurrency },
    held: status.held,
    tasks: status.tasks,
    waitingForAuthor: status.waitingForAuthor ?? [],
    recent: status.recent,
    updatedAtMs: status.updatedAtMs,
  };
}

/**
 * The view without asking the daemon: its status file if it is alive, otherwise what the task
 * files in Approved/ say (their checkpoints and stop flags) and the tasks the last daemon saw finish. Done/ and Rejected/ are only counted,
 * so a vault of 10,000 finished tasks costs two readdirs.
 */
export async function inspectVault(layout: VaultLayout, now: number): Promise<VaultView> {
  const [counts, status] = await Promise.all([folderCounts(layout), liveStatus(layout)]);
  if (status !== null) return viewFromStatus(status, counts);
  // The last daemon's status.json still lists what it saw finish (its files still there).
  return { counts, daemon: null, held: await exists(layout.stopFile), tasks: await tasksFromFiles(layout), waitingForAuthor: [], recent: await readRecent(layout.statusFile), updatedAtMs: now };
}

/** One task's entry as `inspectVault` would list it, without reading the rest of the vault. */
export async function taskEntry(layout: VaultLayout, task: { id: string; file: string }): Promise<TaskEntry | null> {
  const status = await liveStatus(layout);
  if (status !== null) return status.tasks.find((entry) => entry.id === task.id) ?? null;
  if (dirname(task.file) !== layout.approved) return null;
  const state = await readTaskState(task.file);
  return state === null ? null : entryFromFile(basename(task.file), state, existsSync(stopFlagFor(task.file)));
}

/** The running daemon's status.json, or null when no daemon holds the lock (or it has not written one yet). */
async function liveStatus(layout: VaultLayout): Promise<DaemonStatus | null> {
  const owner = await readLockOwner(layout.lockFile);
  if (owner === null || !isLockOwnerAlive(owner)) return null;
  try {
    const status = JSON.parse(await readFile(layout.statusFile, 'utf8')) as DaemonStatus;
    return status.pid === owner.pid ? status : null;
  } catch {
    return null;
  }
}

async function tasksFromFiles(layout: VaultLayout): Promise<TaskEntry[]> {
  let listing: string[];
  try {
    listing = await readdir(layout.approved);
  } catch {
    return [];
  }
  // One listing gives the tasks and their stop flags: no failed lookup per task.
  const stopFlags = new Set(listing.filter(isStopFlagName).map(flagStemOf));
  const entries: TaskEntry[] = [];
  for (const name of listing.filter(isTaskFileName).sort()) {
    const state = await readTaskState(join(layout.approved, name)).catch(() => null);
    if (state !== null) entries.push(entryFromFile(name, state, stopFlags.has(stemOf(name))));
  }
  return entries;
}

function entryFromFile(name: string, state: TaskStateView, stopFlagged: boolean): TaskEntry {
  const loop = state.loop;
  return {
    id: state.id,
    name,
    file: state.file,
    phase: stopFlagged || loop?.status === 'stopped' ? 'stopped' : 'queued',
    ...(loop === undefined ? {} : { iteration: loop.iteration, maxIterations: loop.max_iterations, step: loop.current_step, lastOutcome: loop.status }),
    sinceMs: Date.parse(loop?.updated ?? '') || 0,
  };
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    (error: unknown) => systemErrorCode(error) !== 'ENOENT',
  );
}
