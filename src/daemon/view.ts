import type { SandboxStatus } from '../sandbox/decision.js';
import { lstat, readFile, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { systemErrorCode } from '../errors.js';
import { TASK_FOLDERS } from '../task/states.js';
import type { TaskFolder, TaskStateName } from '../task/states.js';
import type { VaultLayout } from '../vault/layout.js';
import { stopFlagFor } from '../vault/layout.js';
import { stemOf } from '../vault/names.js';
import { isLockOwnerAlive, readLockOwner } from '../lock/owner-lock.js';
import { mapLimited, FILES_AT_ONCE } from '../vault/limited.js';
import { pictureOf } from './picture.js';
import { blockedQuestions, folderPaths, listFolders, readHead, readHeads } from './vault-reading.js';
import type { FileReading, FolderListing, PictureTask } from './picture.js';
import { readRecent } from './recent.js';
import type { AuthorWait, DaemonStatus, WorkerStatus } from './status.js';
import type { NotifierStatus } from '../notify/sender.js';
import type { Figures } from '../stats/figures.js';

/** Everything `wiggum status`, the API, /metrics and Dashboard.md show: one picture of every task (picture.ts). */
export interface VaultView {
  /** Task files per folder. */
  counts: Record<TaskFolder, number>;
  /** Tasks per state (src/task/states.ts): they add up to every task file. */
  states: Record<TaskStateName, number>;
  daemon: { pid: number; lifecycle: DaemonStatus['lifecycle']; startedAtMs: number; concurrency: number } | null;
  held: boolean;
  /** Every task of the vault, in the order of every view (people first). */
  tasks: PictureTask[];
  /** The notifiers and how their deliveries go (empty when none, or the daemon is not running). */
  notifiers?: NotifierStatus[];
  /** The `wiggum worker` processes by id, as status.json has them (absent: no queue, or the daemon is not running). */
  workers?: Record<string, WorkerStatus>;
  /** The headline figures of the ended tasks (the Dashboard's view only, once the daemon has read them). */
  stats?: Figures;
  /** How the running daemon's agents run (absent: no daemon, or an older one). */
  sandbox?: SandboxStatus;
  updatedAtMs: number;
}

/** The daemon's knowledge a view is made from (status.json, or the daemon's own tracker). */
export type Live = Pick<DaemonStatus, 'tasks' | 'recent'> & { waitingForAuthor?: AuthorWait[] };

/**
 * The view of the daemon running in this process, from its own picture of itself (`status`) rather
 * than from the status.json it writes at most every 200 ms: what `inspectVault` would read a moment
 * later. The HTTP API and Dashboard.md answer from it.
 */
export async function inspectOwnDaemon(layout: VaultLayout, status: DaemonStatus): Promise<VaultView> {
  const runs = await foregroundRuns(layout);
  return viewOf(layout, status, withForegroundRuns(status, runs, layout.approved), status.updatedAtMs);
}

/**
 * The view without asking the daemon: its status file if it is alive, otherwise what the task
 * files say (their checkpoints and stop flags) and the tasks the last daemon saw finish. Done/ and
 * Rejected/ are only listed, so a vault of 10,000 finished tasks costs two readdirs.
 */
export async function inspectVault(
  layout: VaultLayout,
  now: number,
  defaultHarness?: string | null,
): Promise<VaultView> {
  const [status, runs] = await Promise.all([liveStatus(layout), foregroundRuns(layout)]);
  if (status !== null)
    return viewOf(layout, status, withForegroundRuns(status, runs, layout.approved), status.updatedAtMs);
  const recent = await readRecent(layout.statusFile);
  const live = withForegroundRuns({ tasks: [], recent }, runs, layout.approved);
  return viewOf(layout, null, { ...live, held: await exists(layout.stopFile) }, now, defaultHarness);
}

/** The picture of `layout` from the folders, the daemon's knowledge (null: none runs) and the files it does not cover. */
async function viewOf(
  layout: VaultLayout,
  daemon: DaemonStatus | null,
  live: Live & { held?: boolean },
  updatedAtMs: number,
  defaultHarness?: string | null,
): Promise<VaultView> {
  const listing = await listFolders(layout);
  // The daemon's tasks are not read again: a vault of 10,000 queued tasks costs one readdir per
  // reading (a task queued but not started yet is then shown without its count).
  const covered = new Set(live.tasks.map((task) => task.name));
  const toRead = [
    ...listing.names.approved.filter((name) => !covered.has(name)).map((name) => join(layout.approved, name)),
    ...listing.names.blocked.map((name) => join(layout.blocked, name)),
    ...listing.names.review.map((name) => join(layout.review, name)),
  ];
  const [readings, questions] = await Promise.all([readHeads(toRead), blockedQuestions(layout)]);
  return assembleView({
    paths: folderPaths(layout),
    daemon,
    live,
    listing,
    readings,
    questions,
    updatedAtMs,
    ...(defaultHarness === undefined ? {} : { defaultHarness }),
  });
}

/** What a view is assembled from, read beforehand. */
export interface ViewParts {
  paths: Record<TaskFolder, string>;
  /** The running daemon's status (null: none runs). */
  daemon: DaemonStatus | null;
  /** Its knowledge of the tasks (or, without it, the recent list and the foreground runs). */
  live: Live & { held?: boolean };
  listing: FolderListing;
  readings: ReadonlyMap<string, FileReading>;
  questions: ReadonlyMap<string, string>;
  updatedAtMs: number;
  /** The config's `harness.default` (null: none), where known: see PictureInputs. */
  defaultHarness?: string | null;
}

/** Pure: the view from its parts (tests build one from plain data). */
export function assembleView(parts: ViewParts): VaultView {
  const { daemon, live } = parts;
  const picture = pictureOf({
    listing: parts.listing,
    paths: parts.paths,
    live:
      daemon === null && live.tasks.length === 0
        ? null
        : { tasks: live.tasks, waitingForAuthor: live.waitingForAuthor ?? [] },
    recent: live.recent,
    readings: parts.readings,
    questions: parts.questions,
    ...(parts.defaultHarness === undefined ? {} : { defaultHarness: parts.defaultHarness }),
  });
  return {
    counts: picture.folders,
    states: picture.byState,
    daemon:
      daemon === null
        ? null
        : {
            pid: daemon.pid,
            lifecycle: daemon.lifecycle,
            startedAtMs: daemon.startedAtMs,
            concurrency: daemon.concurrency,
          },
    held: daemon?.held ?? live.held ?? false,
    tasks: picture.tasks,
    updatedAtMs: parts.updatedAtMs,
    ...(daemon?.notifiers === undefined ? {} : { notifiers: daemon.notifiers }),
    ...(daemon?.workers === undefined ? {} : { workers: daemon.workers }),
    ...(daemon?.sandbox === undefined ? {} : { sandbox: daemon.sandbox }),
  };
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
export function withForegroundRuns<T extends Live & { pid?: number }>(
  live: T,
  runs: ReadonlyMap<string, number>,
  approved: string,
): T {
  const daemonPid = live.pid ?? null;
  const elsewhere = new Map([...runs].filter(([, pid]) => pid !== daemonPid));
  if (elsewhere.size === 0) return live;
  const tasks = live.tasks.map((task) => {
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
  return { ...live, tasks };
}

/**
 * One task as `inspectVault` lists it, from its file alone (and the daemon's knowledge of it):
 * `status ID` and `GET /api/v1/tasks/{id}` say what the whole picture says of it.
 */
export async function taskPicture(
  layout: VaultLayout,
  file: string,
  status?: DaemonStatus | null,
  defaultHarness?: string | null,
): Promise<PictureTask> {
  const paths = folderPaths(layout);
  const folder = TASK_FOLDERS.find((key) => paths[key] === dirname(file)) ?? 'approved';
  const name = basename(file);
  const daemon = status === undefined ? await liveStatus(layout) : status;
  const runs = await foregroundRuns(layout);
  const live = withForegroundRuns(
    daemon ?? { tasks: [], recent: await readRecent(layout.statusFile) },
    runs,
    layout.approved,
  );
  const names = Object.fromEntries(TASK_FOLDERS.map((key) => [key, key === folder ? [name] : []])) as Record<
    TaskFolder,
    string[]
  >;
  const flag = folder === 'approved' && existsSync(stopFlagFor(file));
  const view = assembleView({
    paths,
    daemon,
    live,
    listing: { names, stopFlags: new Set(flag ? [stemOf(name)] : []) },
    readings: new Map([[file, await readHead(file)]]),
    questions: folder === 'blocked' ? await blockedQuestions(layout) : new Map<string, string>(),
    updatedAtMs: 0,
    ...(defaultHarness === undefined ? {} : { defaultHarness }),
  });
  const task = view.tasks[0];
  if (task === undefined) throw new Error(`the picture of ${file} is empty`);
  return task;
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

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    (error: unknown) => systemErrorCode(error) !== 'ENOENT',
  );
}
