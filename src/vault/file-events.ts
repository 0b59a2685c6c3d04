import { watch as watchFolder } from 'node:fs';
import type { FSWatcher as FolderWatcher } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { watch } from 'chokidar';
import { isStopFlagName, isTaskFileName } from './names.js';

/** The paths file events are wanted for. */
export interface WatchedPaths {
  approved: string;
  root: string;
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
export async function resolveWatchedPaths(approved: string, root: string): Promise<WatchedPaths> {
  const real = (path: string): Promise<string> => realpath(path).catch(() => path);
  return { approved: await real(approved), root: await real(root) };
}

/**
 * chokidar on Approved/ only (depth 0, no symlinks followed, only `*.md` task names and `*.stop`
 * flags), plus a plain non-recursive watch of the vault root for `STOP` (and Approved/ itself
 * appearing). The root watch sees no event from inside Done/ or Rejected/, and, unlike a
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

  const chokidar = watch(paths.approved, {
    depth: 0,
    followSymlinks: false,
    ignoreInitial: true,
    // chokidar asks about the watched folder itself (and its parent while it does not exist) too.
    ignored: (path: string) => !isWatchedPath(path, paths),
  });
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

  return {
    onChange: (listener) => void changeListeners.push(listener),
    onReady: (listener) => void chokidar.once('ready', listener),
    onError: (listener) => void errorListeners.push(listener),
    close: async () => {
      rootWatch?.close();
      await chokidar.close();
    },
  };
}

function isWatchedPath(path: string, paths: WatchedPaths): boolean {
  if (path === paths.approved || path === paths.root) return true;
  if (dirname(path) !== paths.approved) return false;
  const name = basename(path);
  return isTaskFileName(name) || isStopFlagName(name);
}
