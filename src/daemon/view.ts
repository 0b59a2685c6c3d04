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
import { linkRefusalOf, linkRefusalText } from '../vault/links.js';
import { mapLimited, FILES_AT_ONCE } from '../vault/limited.js';
import { readRecent } from './recent.js';
import type { AuthorWait, DaemonStatus, FinishedEntry, TaskEntry, WorkerStatus } from './status.js';
import type { NotifierStatus } from '../notify/sender.js';
import type { BlockedTask } from '../vault/blocked-list.js';
import type { Figures } from '../stats/figures.js';

/** Everything `wiggum status` and Dashboard.md show, from the daemon's live status or the files. */
export interface VaultView {
  counts: { approved: number; done: number; rejected: number };
  daemon: { pid: number; lifecycle: DaemonStatus['lifecycle']; startedAtMs: number; concurrency: number } | null;
  held: boolean;
  tasks: TaskEntry[];
  /** Files in Approved/ that wait for their author: empty, no harness named (a running daemon's view only), or a link refused. */
  waitingForAuthor: AuthorWait[];
  recent: FinishedEntry[];
  /** The notifiers and how their deliveries go (empty when none, or the daemon is not running). */
  notifiers?: NotifierStatus[];
  /** The `wiggum worker` processes by id, as status.json has them (absent: no queue, or the daemon is not running). */
  workers?: Record<string, WorkerStatus>;
  /** The tasks in Blocked/ with their questions (the Dashboard's view only). */
  blocked?: BlockedTask[];
  /** The headline figures of the ended tasks (the Dashboard's view only, once the daemon has read them). */
  stats?: Figures;
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
  const [approved, done, rejected] = await Promise.all([
    countTasks(layout.approved),
    countTasks(layout.done),
    countTasks(layout.rejected),
  ]);
  return { approved, done, rejected };
}

/** The view a running daemon holds, with fresh folder counts. */
export function viewFromStatus(status: DaemonStatus, counts: VaultView['counts']): VaultView {
  return {
    counts,
    daemon: {
      pid: status.pid,
      lifecycle: status.lifecycle,
      startedAtMs: status.startedAtMs,
      concurrency: status.concurrency,
    },
    held: status.held,
    tasks: status.tasks,
    waitingForAuthor: status.waitingForAuthor ?? [],
    recent: status.recent,
    updatedAtMs: status.updatedAtMs,
    ...(status.notifiers === undefined ? {} : { notifiers: status.notifiers }),
    ...(status.workers === undefined ? {} : { workers: status.workers }),
  };
}

/**
 * The view of the daemon running in this process, from its own picture of itself (`status`) rather
 * than from the status.json it writes at most every 200 ms: what `inspectVault` would read a moment
 * later. The HTTP API answers from it.
 */
export async function inspectOwnDaemon(layout: VaultLayout, status: DaemonStatus): Promise<VaultView> {
  const [counts, runs] = await Promise.all([folderCounts(layout), foregroundRuns(layout)]);
  return withForegroundRuns(viewFromStatus(status, counts), runs, layout.approved);
}

/**
 * The view without asking the daemon: its status file if it is alive, otherwise what the task
 * files in Approved/ say (their checkpoints and stop flags) and the tasks the last daemon saw finish. Done/ and Rejected/ are only counted,
 * so a vault of 10,000 finished tasks costs two readdirs.
 */
export async function inspectVault(layout: VaultLayout, now: number): Promise<VaultView> {
  const [counts, status, runs] = await Promise.all([folderCounts(layout), liveStatus(layout), foregroundRuns(layout)]);
  if (status !== null) return withForegroundRuns(viewFromStatus(status, counts), runs, layout.approved);
  // The last daemon's status.json still lists what it saw finish (its files still there).
  const files = await tasksFromFiles(layout);
  const view: VaultView = {
    counts,
    daemon: null,
    held: await exists(layout.stopFile),
    tasks: files.tasks,
    waitingForAuthor: files.refused,
    recent: await readRecent(layout.statusFile),
    updatedAtMs: now,
  };
  return withForegroundRuns(view, runs, layout.approved);
}

/**
 * The tasks that another wiggum (a foreground `wiggum run`, or `ralph`) runs now, by id, with its
 * pid: the live owners of `.wiggum/locks/<id>.lock` (src/loop/task-lock.ts). Only those files are
 * read, so the cost is the number of runs, not of tasks.
 */
export async function foregroundRuns(layout: VaultLayout): Promise<Map<string, number>> {
  const runs = new Map<string, number>();
  let names: string[];
  try {
    names = (await readdir(layout.taskLocks)).filter((name) => name.endsWith('.lock'));
  } catch {
    return runs;
  }
  await mapLimited(names, FILES_AT_ONCE, async (name) => {
    const owner = await readLockOwner(join(layout.taskLocks, name)).catch(() => null);
    if (owner !== null && owner.pid !== process.pid && isLockOwnerAlive(owner))
      runs.set(name.slice(0, -'.lock'.length), owner.pid);
  });
  return runs;
}

/**
 * Marks the tasks another process runs. A daemon's own runs hold their locks too, under its pid;
 * any other live owner is a foreground run, never "queued", whatever the daemon last saw.
 */
export function withForegroundRuns(view: VaultView, runs: ReadonlyMap<string, number>, approved: string): VaultView {
  const daemonPid = view.daemon?.pid ?? null;
  const elsewhere = new Map([...runs].filter(([, pid]) => pid !== daemonPid));
  if (elsewhere.size === 0) return view;
  const tasks = view.tasks.map((task) => {
    const pid = elsewhere.get(task.id);
    if (pid === undefined) return task;
    elsewhere.delete(task.id);
    return { ...task, phase: 'running' as const, foreground: { pid } };
  });
  // A run the daemon has not listed (it let the task go when it found it locked).
  for (const [id, pid] of [...elsewhere].sort())
    tasks.unshift({
      id,
      name: `${id}.md`,
      file: join(approved, `${id}.md`),
      phase: 'running',
      sinceMs: 0,
      foreground: { pid },
    });
  return { ...view, tasks };
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

/** The tasks in Approved/ as their files say, and the links there that are refused (src/vault/links.ts). */
async function tasksFromFiles(layout: VaultLayout): Promise<{ tasks: TaskEntry[]; refused: AuthorWait[] }> {
  let listing: string[];
  try {
    listing = await readdir(layout.approved);
  } catch {
    return { tasks: [], refused: [] };
  }
  // One listing gives the tasks and their stop flags: no failed lookup per task.
  const stopFlags = new Set(listing.filter(isStopFlagName).map(flagStemOf));
  const names = listing.filter(isTaskFileName).sort();
  const tasks: TaskEntry[] = [];
  const refused: AuthorWait[] = [];
  const found = await mapLimited(
    names,
    FILES_AT_ONCE,
    async (name): Promise<{ task: TaskEntry } | { refused: AuthorWait } | null> => {
      const file = join(layout.approved, name);
      const stats = await lstat(file).catch(() => null);
      const refusal = stats === null ? null : linkRefusalOf(stats);
      if (refusal !== null) return { refused: { name, file, reason: refusal, message: linkRefusalText(refusal) } };
      const state = await readTaskState(file).catch(() => null);
      return state === null ? null : { task: entryFromFile(name, state, stopFlags.has(stemOf(name))) };
    },
  );
  for (const item of found) {
    if (item === null) continue;
    if ('task' in item) tasks.push(item.task);
    else refused.push(item.refused);
  }
  return { tasks, refused };
}

function entryFromFile(name: string, state: TaskStateView, stopFlagged: boolean): TaskEntry {
  const loop = state.loop;
  return {
    id: state.id,
    name,
    file: state.file,
    phase: stopFlagged || loop?.status === 'stopped' ? 'stopped' : 'queued',
    ...(loop === undefined
      ? {}
      : {
          iteration: loop.iteration,
          maxIterations: loop.max_iterations,
          step: loop.current_step,
          lastOutcome: loop.status,
        }),
    sinceMs: Date.parse(loop?.updated ?? '') || 0,
  };
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    (error: unknown) => systemErrorCode(error) !== 'ENOENT',
  );
}
