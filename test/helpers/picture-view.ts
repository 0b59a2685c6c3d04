import type { FileReading } from '../../src/daemon/picture.js';
import type { AuthorWait, DaemonStatus, FinishedEntry, TaskEntry } from '../../src/daemon/status.js';
import { assembleView } from '../../src/daemon/view.js';
import type { VaultView } from '../../src/daemon/view.js';
import { TASK_FOLDERS } from '../../src/task/states.js';
import type { TaskFolder } from '../../src/task/states.js';

/** The folders of a vault at `/v` with the default names. */
export const PATHS: Record<TaskFolder, string> = {
  approved: '/v/Approved',
  blocked: '/v/Blocked',
  review: '/v/Review',
  done: '/v/Done',
  rejected: '/v/Rejected',
};

export interface PictureSetup {
  /** The daemon's status (its tasks are `entries`); null or absent: no daemon runs. */
  daemon?: Omit<DaemonStatus, 'tasks' | 'recent'> | null;
  waits?: AuthorWait[];
  recent?: FinishedEntry[];
  /** More task files per folder, beside the entries' and the waits' (which are in Approved/). */
  files?: Partial<Record<TaskFolder, string[]>>;
  stopFlags?: string[];
  readings?: Map<string, FileReading>;
  questions?: Map<string, string>;
  held?: boolean;
  nowMs?: number;
  /** The config's harness.default as a reader knows it (absent: unknown). */
  defaultHarness?: string | null;
}

/** Pure: the view a vault at `/v` gives, its Approved/ holding the entries' files (as a running daemon lists them). */
export function viewOfEntries(entries: readonly TaskEntry[], setup: PictureSetup = {}): VaultView {
  const names = Object.fromEntries(
    TASK_FOLDERS.map((folder) => [folder, [...(setup.files?.[folder] ?? [])]]),
  ) as Record<TaskFolder, string[]>;
  for (const name of [...entries.map((entry) => entry.name), ...(setup.waits ?? []).map((wait) => wait.name)])
    if (!names.approved.includes(name)) names.approved.push(name);
  const recent = setup.recent ?? [];
  const daemon =
    setup.daemon === undefined || setup.daemon === null ? null : { ...setup.daemon, tasks: [...entries], recent };
  return assembleView({
    paths: PATHS,
    daemon,
    live: {
      tasks: [...entries],
      recent,
      ...(setup.waits === undefined ? {} : { waitingForAuthor: setup.waits }),
      ...(setup.held === undefined ? {} : { held: setup.held }),
    },
    listing: { names, stopFlags: new Set(setup.stopFlags ?? []) },
    readings: setup.readings ?? new Map(),
    questions: setup.questions ?? new Map(),
    updatedAtMs: setup.nowMs ?? 0,
    ...(setup.defaultHarness === undefined ? {} : { defaultHarness: setup.defaultHarness }),
  });
}
