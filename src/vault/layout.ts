import { join, resolve } from 'node:path';
import type { WiggumConfig } from '../config/config.js';

/** Every path wiggum uses inside a vault, derived once from the root and the folder names. */
export interface VaultLayout {
  root: string;
  approved: string;
  done: string;
  rejected: string;
  /** Where a complete task that needs review waits for a person (Review/). */
  review: string;
  /** Tasks whose agent asked a person a question, waiting for the answer. */
  blocked: string;
  /** `<vault>/STOP`: while it exists no iteration of any task starts. */
  stopFile: string;
  dashboard: string | null;
  state: string;
  sessions: string;
  archive: string;
  workspaces: string;
  lockFile: string;
  /** `.wiggum/locks/<id>.lock`: which process runs a task, so that no two run it at once. */
  taskLocks: string;
  /** The running daemon's live picture, for `wiggum status`. */
  statusFile: string;
}

/** Only the folder names matter, so a layout can be had without loading the whole configuration. */
export function vaultLayout(root: string, config: Pick<WiggumConfig, 'folders' | 'dashboard'>): VaultLayout {
  const absolute = resolve(root);
  const state = join(absolute, '.wiggum');
  return {
    root: absolute,
    approved: join(absolute, config.folders.approved),
    done: join(absolute, config.folders.done),
    rejected: join(absolute, config.folders.rejected),
    review: join(absolute, config.folders.review),
    blocked: join(absolute, config.folders.blocked ?? 'Blocked'),
    stopFile: join(absolute, 'STOP'),
    dashboard: config.dashboard === null ? null : join(absolute, config.dashboard),
    state,
    sessions: join(state, 'sessions'),
    archive: join(state, 'archive'),
    workspaces: join(state, 'workspaces'),
    lockFile: join(state, 'daemon.lock'),
    taskLocks: join(state, 'locks'),
    statusFile: join(state, 'status.json'),
  };
}

/** The stop flag of a task file: `Approved/<name>.stop` next to `Approved/<name>.md`. */
export function stopFlagFor(taskFile: string): string {
  return taskFile.replace(/\.md$/i, '') + '.stop';
}
