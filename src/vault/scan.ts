import { lstat, readdir } from 'node:fs/promises';
import type { Dirent, Stats } from 'node:fs';
import { join } from 'node:path';
import { isWiggumError, systemErrorCode } from '../errors.js';
import { readTaskFile } from '../task/read.js';
import { orderWaits, parseNotBefore } from '../task/order.js';
import type { OrderTask } from '../task/order.js';
import { chooseHarness } from '../task/harness-choice.js';
import type { ParseResult } from '../task/parse.js';
import { waitReasonOf } from '../task/readiness.js';
import type { WaitReason } from '../task/readiness.js';
import { systemClock } from '../time/clock.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from './layout.js';
import { FILES_AT_ONCE, mapLimited } from './limited.js';
import { flagStemOf, isStopFlagName, isTaskFileName } from './names.js';
import { taskPlaces } from './task-places.js';

/** One file in Approved/ that may be a task, as one scan saw it. */
export interface TaskFileEntry {
  name: string;
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
  /** Whether the file parses as a task; null when this scan did not read it. */
  parses: boolean | null;
  /** Why a file that was read may not run yet (empty, no harness named); null if it may, or was not read. */
  wait?: WaitReason | null;
}

/** What is in the vault at one moment, as far as starting and stopping tasks goes. */
export interface VaultSnapshot {
  takenAtMs: number;
  /** Task files by name (`foo.md`). */
  tasks: Map<string, TaskFileEntry>;
  /**
   * Names of regular `*.md` files that are not tasks only because they have other hard links
   * (wiggum's own move to Done/ links before it unlinks; a backup tool may link a whole vault).
   * Never started, but a task already running under such a name is still there.
   */
  linked: Set<string>;
  /** Names of `*.md` symbolic links: refused (a link could point anywhere), never started. */
  symlinks: Set<string>;
  /** Stems of the stop flags: `foo.stop` → `foo`, which stops `foo.md`. */
  stopFlags: Set<string>;
  /** Whether `<vault>/STOP` exists. */
  globalStop: boolean;
}

export interface ScanOptions {
  /** Which task files to read and parse (the ones still settling); the others get `parses: null`. */
  parse: (name: string) => boolean;
  /**
   * What is already known of a file that has been handed over (active or stopped): for those only
   * presence matters, so a regular file seen by readdir is not lstat'ed again. Without this, every
   * reconciliation would lstat every task in Approved/, which is quadratic while many run.
   */
  known?: (name: string) => { size: number; mtimeMs: number; ino: number } | null;
  /** The configured `harness.default` (null: none), to tell a task that names no harness to wait. */
  defaultHarness?: string | null;
  /**
   * Whether a task on this harness must wait for the sandbox (it must run confined and cannot be
   * here); asked at every read, so a task starts once bubblewrap is installed.
   */
  sandboxBlocked?: (harness: string) => Promise<boolean>;
  clock?: Clock;
}

/**
 * Lists Approved/: one readdir, one lstat per file not yet handed over, and a read only of the files
 * `parse` selects. A missing Approved/ is an empty folder; any other error is thrown.
 */
export async function scanApproved(layout: VaultLayout, options: ScanOptions): Promise<VaultSnapshot> {
  const takenAtMs = (options.clock ?? systemClock).now();
  const snapshot: VaultSnapshot = {
    takenAtMs,
    tasks: new Map(),
    linked: new Set(),
    symlinks: new Set(),
    stopFlags: new Set(),
    globalStop: false,
  };
  const [entries, globalStop] = await Promise.all([listFolder(layout.approved), exists(layout.stopFile)]);
  snapshot.globalStop = globalStop;

  const candidates: string[] = [];
  /** The files read that may run but for the order of work, by name: decided once all are read. */
  const ordered = new Map<string, OrderTask>();
  for (const entry of entries) {
    if (entry.isDirectory()) continue;
    if (isStopFlagName(entry.name)) {
      snapshot.stopFlags.add(flagStemOf(entry.name));
    } else if (isTaskFileName(entry.name)) {
      const known = entry.isFile() ? options.known?.(entry.name) : null;
      if (known)
        snapshot.tasks.set(entry.name, {
          name: entry.name,
          path: join(layout.approved, entry.name),
          ...known,
          parses: null,
        });
      else candidates.push(entry.name);
    }
  }

  await mapLimited(candidates, FILES_AT_ONCE, async (name) => {
    const path = join(layout.approved, name);
    const stats = await lstatOrNull(path);
    // lstat, never stat: a symlink is never a task, whatever it points to.
    if (stats?.isSymbolicLink() === true) snapshot.symlinks.add(name);
    if (stats === null || !stats.isFile()) return;
    if (stats.nlink !== 1) {
      snapshot.linked.add(name);
      return;
    }
    const entry: TaskFileEntry = { name, path, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino, parses: null };
    if (options.parse(name)) {
      const checked = await readAndParse(entry, options.defaultHarness ?? null, options.sandboxBlocked);
      if (checked === null) return;
      snapshot.tasks.set(name, checked.entry);
      if (checked.order !== null) ordered.set(name, checked.order);
      return;
    }
    snapshot.tasks.set(name, entry);
  });
  if (ordered.size > 0) await holdForOrder(layout, snapshot, ordered);
  return snapshot;
}

/**
 * Sets the wait of each read file that the order of work holds (a dependency not done, a time not
 * come, a stuck dependency). Only files with `depends_on:` or `not_before:` get here, so a vault
 * that uses neither never pays for the listing of its folders.
 */
async function holdForOrder(
  layout: VaultLayout,
  snapshot: VaultSnapshot,
  ordered: ReadonlyMap<string, OrderTask>,
): Promise<void> {
  const tasks = [...ordered.values()];
  const places = tasks.some((task) => task.dependsOn.length > 0)
    ? await taskPlaces(
        layout,
        tasks.map((task) => task.id),
      )
    : new Map();
  const graph = new Map(tasks.map((task) => [task.id, task.dependsOn]));
  const waits = orderWaits(tasks, graph, places, snapshot.takenAtMs);
  for (const [name, task] of ordered) {
    const wait = waits.get(task.id);
    const entry = snapshot.tasks.get(name);
    if (wait !== undefined && entry !== undefined) snapshot.tasks.set(name, { ...entry, wait });
  }
}

/** A file read: what the scan saw, and its order of work when that alone may hold it. */
interface ReadEntry {
  entry: TaskFileEntry;
  order: OrderTask | null;
}

async function readAndParse(
  entry: TaskFileEntry,
  defaultHarness: string | null,
  sandboxBlocked?: (harness: string) => Promise<boolean>,
): Promise<ReadEntry | null> {
  // An empty file is the usual first step of "create, then write": not a task yet, and never one.
  if (entry.size === 0) return { entry: { ...entry, parses: true, wait: 'empty' }, order: null };
  try {
    const read = await readTaskFile(entry.path);
    // The identity of what was parsed; if the file changed since the lstat, reconciliation sees it.
    const wait =
      waitReasonOf(read.text, read.result, defaultHarness) ??
      (await sandboxWait(read.result, defaultHarness, sandboxBlocked));
    const seen: TaskFileEntry = {
      ...entry,
      size: read.stat.size,
      mtimeMs: read.stat.mtimeMs,
      ino: read.stat.ino,
      parses: read.result.ok || wait !== null,
      wait,
    };
    if (!read.result.ok || wait !== null) return { entry: seen, order: null };
    const { id, frontmatter } = read.result.task;
    const dependsOn = frontmatter.depends_on ?? [];
    const notBeforeMs = frontmatter.not_before === undefined ? null : parseNotBefore(frontmatter.not_before);
    const order = dependsOn.length > 0 || notBeforeMs !== null ? { id, dependsOn, notBeforeMs } : null;
    return { entry: seen, order };
  } catch (error) {
    if (isWiggumError(error, 'E_TASK_NOT_FOUND')) return null;
    // Unreadable (permissions, …): it will be handed over after the malformed grace, and the
    // runner, which reads it again, reports why.
    return { entry: { ...entry, parses: false }, order: null };
  }
}

/** `no-sandbox` when the task's harness must run confined and cannot be here; null otherwise. */
async function sandboxWait(
  result: ParseResult,
  defaultHarness: string | null,
  sandboxBlocked: ((harness: string) => Promise<boolean>) | undefined,
): Promise<'no-sandbox' | null> {
  if (sandboxBlocked === undefined || !result.ok) return null;
  const harness = chooseHarness(undefined, result.task.frontmatter.harness, defaultHarness);
  return harness !== null && (await sandboxBlocked(harness.name)) ? 'no-sandbox' : null;
}

async function listFolder(path: string): Promise<Dirent[]> {
  try {
    return await readdir(path, { withFileTypes: true });
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return [];
    throw error;
  }
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return null;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return (await lstatOrNull(path)) !== null;
}
