import { existsSync } from 'node:fs';
import type { Release } from '../releasers.js';
import type { Clock } from '../time/clock.js';
import { stopFlagFor } from './layout.js';

import type { SeenStopReason } from '../loop/outcome.js';

// A stop reason seen on disk (the loop's own type: `loop/outcome.ts`), named here for its callers.
export type { SeenStopReason } from '../loop/outcome.js';

/** What one look at a running task's folder saw. */
export interface TaskFileLook {
  /** `Approved/<name>.stop` exists. */
  flagExists: boolean;
  /** The task file itself still exists. */
  fileExists: boolean;
}

/**
 * Whether a running task must stop, and why. The flag wins over a missing file: a user who set the
 * flag and then moved the file asked for a stop, and the stop keeps the task's memory either way.
 */
export function stopReasonSeen(look: TaskFileLook): SeenStopReason | null {
  if (look.flagExists) return 'stop-flag';
  if (!look.fileExists) return 'task-gone';
  return null;
}

export interface StopFlagWatch {
  /** The task file being watched; a function, since a rename while running changes it. */
  file: () => string;
  /** The look repeats after this long, on `clock`. */
  intervalMs: number;
  clock: Clock;
  /** Called once, with the first reason seen; the watch ends there. */
  onStop: (reason: SeenStopReason) => void;
  /** How a path is looked at; the real file system unless a test says otherwise. */
  exists?: (path: string) => boolean;
}

/**
 * Watches one running task for its stop flag (and for its file going away) until released, on the
 * injected clock. A poll rather than a file watcher: a foreground run watches one file, and two
 * `existsSync` calls per interval cost less than starting chokidar on the folder. The daemon sees
 * the same flag in its vault scan (`plan`, `vault/reconcile.ts`), which covers every task at once,
 * and aborts with the same reason.
 */
export function watchStopFlag(watch: StopFlagWatch): Release {
  const exists = watch.exists ?? existsSync;
  const released = new AbortController();
  const look = (): SeenStopReason | null => {
    const file = watch.file();
    return stopReasonSeen({ flagExists: exists(stopFlagFor(file)), fileExists: exists(file) });
  };
  const loop = async (): Promise<void> => {
    for (;;) {
      await watch.clock.sleep(watch.intervalMs, released.signal);
      const reason = look();
      if (reason !== null) {
        watch.onStop(reason);
        return;
      }
    }
  };
  void loop().catch((error: unknown) => {
    // A release ends the sleep early, and that is the end of the watch; anything else is a bug,
    // left to fail loudly rather than leave a run that no flag can stop.
    if (!released.signal.aborted) throw error;
  });
  return () => released.abort();
}

/** Whether a task's stop flag is set now: checked once, before a foreground run starts at all. */
export function stopFlagIsSet(taskFile: string): boolean {
  return existsSync(stopFlagFor(taskFile));
}
