// Variant of dist/vault/file-events.js: one non-recursive fs.watch (inotify) on Approved/ instead of
// chokidar. The events stay hints (the watcher reconciles from a scan); the cost per event is O(1)
// instead of chokidar's re-read of the whole folder with an lstat per entry, and there is one
// inotify watch instead of one per file.
import { watch as watchFolder } from 'node:fs';
import { basename } from 'node:path';
export * from '../../dist/vault/file-events.js?original';
import { isStopFlagName, isTaskFileName } from '../../dist/vault/names.js';

export function createFileEventSource(paths) {
  const changeListeners = [];
  const errorListeners = [];
  const readyListeners = [];
  const changed = () => changeListeners.forEach((listener) => listener());
  const failed = (error) => {
    const wrapped = error instanceof Error ? error : new Error(String(error));
    errorListeners.forEach((listener) => listener(wrapped));
  };
  const watches = [];
  try {
    const approved = watchFolder(paths.approved, { persistent: false }, (_event, filename) => {
      const name = filename === null ? null : filename.toString();
      if (name === null || isTaskFileName(name) || isStopFlagName(name)) changed();
    });
    approved.on('error', failed);
    watches.push(approved);
  } catch (error) {
    setImmediate(() => failed(error));
  }
  const approvedName = basename(paths.approved);
  try {
    const root = watchFolder(paths.root, { persistent: false }, (_event, filename) => {
      const name = filename === null ? null : filename.toString();
      if (name === null || name === 'STOP' || name === approvedName) changed();
    });
    root.on('error', failed);
    watches.push(root);
  } catch (error) {
    setImmediate(() => failed(error));
  }
  setImmediate(() => readyListeners.forEach((listener) => listener()));
  return {
    onChange: (listener) => void changeListeners.push(listener),
    onReady: (listener) => void readyListeners.push(listener),
    onError: (listener) => void errorListeners.push(listener),
    close: async () => {
      for (const watch of watches) watch.close();
    },
  };
}
