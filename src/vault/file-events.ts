import { Dirent, watch as watchFolder } from 'node:fs';
import type { FSWatcher as FolderWatcher, Stats } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { FSWatcher } from 'chokidar';
import { isStopFlagName, isTaskFileName } from './names.js';

/** The paths file events are wanted for. */
export interface WatchedPaths {
  approved: string;
  root: string;
  /**
   * Folders where a task file arriving may let a task in Approved/ start (Done/ and Rejected/, for
   * depends_on): watched plainly, without recursion; absent or empty, none.
   */
  others?: string[];
}

/**
 * File-system events, reduced to what the vault watcher needs: something may have changed. The
 * events are hints that trigger a reconciliation, never facts to act on.
 */
export interface FileEventSource {
  onChange(listener: () => void): void;
  /** Called once, when the initial watches are in place. */
  onReady(listener: () => void): void;
  onError(listener: (error: Error) => void): void;
  close(): Promise<void>;
}

export type FileEventSourceFactory = (paths: WatchedPaths) => FileEventSource;

/** The real paths (chokidar does not follow a symlinked vault or Approved/ with followSymlinks off). */
export async function resolveWatchedPaths(
  approved: string,
  root: string,
  others: string[] = [],
): Promise<WatchedPaths> {
  const real = (path: string): Promise<string> => realpath(path).catch(() => path);
  return { approved: await real(approved), root: await real(root), others: await Promise.all(others.map(real)) };
}

/**
 * chokidar on Approved/ only (depth 0, no symlinks followed, only `*.md` task names and `*.stop`
 * flags), plus a plain non-recursive watch of the vault root for `STOP` (and Approved/ itself
 * appearing), and of `others` (Done/, Rejected/) for task files landing there. The root watch sees no event from inside Done/ or Rejected/, and, unlike a
 * chokidar watch of the STOP path, notices STOP coming back after it was removed.
 */
export function createFileEventSource(paths: WatchedPaths): FileEventSource {
  const changeListeners: (() => void)[] = [];
  const errorListeners: ((error: Error) => void)[] = [];
  const changed = (): void => changeListeners.forEach((listener) => listener());
  const failed = (error: unknown): void => {
    const wrapped = error instanceof Error ? error : new Error(String(error));
    errorListeners.forEach((listener) => listener(wrapped));
  };

  const chokidar = new ListingByTypeWatcher({
    depth: 0,
    followSymlinks: false,
    ignoreInitial: true,
    // chokidar asks about the watched folder itself (and its parent while it does not exist) too.
    ignored: (path: string) => !isWatchedPath(path, paths),
  });
  chokidar.add(paths.approved);
  chokidar.on('all', changed);
  chokidar.on('error', failed);

  const approvedName = basename(paths.approved);
  let rootWatch: FolderWatcher | null = null;
  try {
    rootWatch = watchFolder(paths.root, { persistent: false }, (_event, filename) => {
      const name = filename === null ? null : filename.toString();
      if (name === null || name === 'STOP' || name === approvedName) changed();
    });
    rootWatch.on('error', failed);
  } catch (error) {
    // Reported once the listeners are attached; the periodic rescan still sees STOP.
    setImmediate(() => failed(error));
  }

  // A task file landing in Done/ or Rejected/ decides the tasks that depend on it. These watches
  // are hints only: one that cannot be set (the folder missing) or fails leaves the rescan to it,
  // and never degrades the watcher of Approved/.
  const otherWatches: FolderWatcher[] = [];
  for (const folder of paths.others ?? []) {
    try {
      const watch = watchFolder(folder, { persistent: false }, (_event, filename) => {
        const name = filename === null ? null : filename.toString();
        if (name === null || isTaskFileName(name)) changed();
      });
      watch.on('error', () => watch.close());
      otherWatches.push(watch);
    } catch {
      // Not there (yet): the periodic rescan covers it.
    }
  }

  return {
    onChange: (listener) => void changeListeners.push(listener),
    onReady: (listener) => void chokidar.once('ready', listener),
    onError: (listener) => void errorListeners.push(listener),
    close: async () => {
      for (const watch of otherWatches) watch.close();
      rootWatch?.close();
      await chokidar.close();
    },
  };
}

type ListingOptions = NonNullable<Parameters<FSWatcher['_readdirp']>[1]>;
type ListingFilter = NonNullable<ListingOptions['fileFilter']>;

/**
 * chokidar, with a cheaper listing of a folder. chokidar lists Approved/ again on every event in it
 * (each checkpoint write, each move to Done/), lstats every entry of it (readdirp with `alwaysStat`,
 * which it offers no option to turn off) and runs each through its filters, though all the listing
 * is for is to find entries that came or went: with 1,000 tasks queued, that took half of the
 * daemon's CPU (docs/performance.md). Here the listing takes each entry's type from readdir, and an
 * entry chokidar already watches passes the filters at once, as it did when it was added (they
 * depend on its name and type only). An entry new to chokidar is filtered, then lstat'ed before it
 * is watched, as before. The one check lost is read permission by mode: an unreadable file is now
 * watched, that watch fails with EACCES, and watchVault takes the error for a hint about a file in
 * Approved/. Both methods are in chokidar's type declarations, so an upgrade that changes them
 * fails the typecheck.
 */
class ListingByTypeWatcher extends FSWatcher {
  override _readdirp(root: string, options?: ListingOptions): ReturnType<FSWatcher['_readdirp']> {
    const watched = this._getWatchedDir(root);
    const known = (name: string): boolean => watched.has(name) === true;
    const listing: ListingOptions = { ...options, alwaysStat: false };
    if (options?.fileFilter !== undefined) listing.fileFilter = typeAsStats(options.fileFilter, known);
    if (options?.directoryFilter !== undefined) listing.directoryFilter = typeAsStats(options.directoryFilter, known);
    return super._readdirp(root, listing);
  }

  override _hasReadPermissions(stats: Stats): boolean {
    // A listed entry carries its Dirent (see typeAsStats): whether it can be read shows when it is watched.
    return stats instanceof Dirent || super._hasReadPermissions(stats);
  }
}

/**
 * chokidar's filters and its listing read `entry.stats`; in a listing without stats, the Dirent
 * answers for it. A known entry skips the filter (chokidar's path handling per entry).
 */
function typeAsStats(filter: ListingFilter, known: (name: string) => boolean): ListingFilter {
  if (typeof filter !== 'function') return filter;
  return (entry) => {
    entry.stats ??= entry.dirent as unknown as Stats;
    return known(entry.basename) || filter(entry);
  };
}

function isWatchedPath(path: string, paths: WatchedPaths): boolean {
  if (path === paths.approved || path === paths.root) return true;
  if (dirname(path) !== paths.approved) return false;
  const name = basename(path);
  return isTaskFileName(name) || isStopFlagName(name);
}
