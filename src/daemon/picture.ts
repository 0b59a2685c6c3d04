import { NO_HARNESS_TEXT } from '../task/harness-choice.js';
import { idFromFileName } from '../task/id.js';
import { TASK_FOLDERS, noTasksByState, stateOfFolder, stateRank } from '../task/states.js';
import type { TaskFolder, TaskStateName } from '../task/states.js';
import type { AuthorWait, FinishedEntry, TaskEntry, TaskWorker } from './status.js';

/**
 * One task as every view shows it: where it is, its one state (src/task/states.ts), the iterations
 * it has finished (its checkpoint's count), and what the daemon knows of its run.
 */
export interface PictureTask {
  id: string;
  name: string;
  file: string;
  folder: TaskFolder;
  state: TaskStateName;
  /** Iterations finished, as its checkpoint says; absent where no cheap reading gives it (an old ended task). */
  iterations?: number;
  maxIterations?: number;
  /** What it waits for, or what is wrong with it, in words. */
  why?: string;
  /** A blocked task's question, on one line. */
  question?: string;
  /** When an ended task ended, and why a rejected one was (from the daemon's recent list). */
  endedAtMs?: number;
  reason?: string;
  /** The `wiggum worker` that runs it (scale-out), said beside its state. */
  worker?: TaskWorker;
  /** The daemon's live knowledge of its run (absent: not running here now). */
  run?: RunFacts;
}

/** What a running daemon (or a foreground run) knows of a task's run, beyond its state. */
export type RunFacts = Omit<
  TaskEntry,
  'id' | 'name' | 'file' | 'phase' | 'iteration' | 'maxIterations' | 'waitingFor' | 'worker'
>;

/** The task files of each folder (names), and the stop flags of Approved/ (their stems). */
export interface FolderListing {
  names: Record<TaskFolder, readonly string[]>;
  stopFlags: ReadonlySet<string>;
}

/** What a task file's head says, read where the daemon's knowledge does not cover it. */
export type FileReading =
  | {
      kind: 'read';
      id: string;
      status: string | undefined;
      iterations: number;
      maxIterations?: number;
      /** The harness its frontmatter names (absent: none). */
      harness?: string;
    }
  /** The file does not parse as a task. */
  | { kind: 'unparsable' }
  /** A link wiggum never runs (src/vault/links.ts): why, in words. */
  | { kind: 'refused'; why: string }
  /** Not read (not needed: the folder or the daemon says enough). */
  | { kind: 'unread' };

/** Everything the picture is made of: plain data, read beforehand. */
export interface PictureInputs {
  listing: FolderListing;
  /** The absolute path of each folder. */
  paths: Record<TaskFolder, string>;
  /** The running daemon's picture of its tasks, or null when no daemon runs. */
  live: { tasks: readonly TaskEntry[]; waitingForAuthor: readonly AuthorWait[] } | null;
  /** The tasks a daemon saw end, newest first (status.json's `recent`). */
  recent: readonly FinishedEntry[];
  /** Task files read, by absolute path (see FileReading). */
  readings: ReadonlyMap<string, FileReading>;
  /** Blocked tasks' questions, by file name. */
  questions: ReadonlyMap<string, string>;
  /**
   * The config's `harness.default` (null: none), for a file no daemon holds that names no harness;
   * undefined when not known (the file is then only queued).
   */
  defaultHarness?: string | null;
}

export interface Picture {
  /** Every task of the vault, in the order of every view: by state (people first), then by time and name. */
  tasks: PictureTask[];
  /** How many tasks are in each state; they add up to every task file. */
  byState: Record<TaskStateName, number>;
  /** How many task files each folder holds. */
  folders: Record<TaskFolder, number>;
}

/** Pure: the one picture of every task, from the folders, the files' heads and the daemon's knowledge. */
export function pictureOf(inputs: PictureInputs): Picture {
  const byName = new Map<string, PictureTask>();
  // Approved/ first: a task also found in another folder (a move between its link and its unlink,
  // or a copy) is where it went, not where it was.
  for (const folder of TASK_FOLDERS)
    for (const name of inputs.listing.names[folder]) {
      const task = taskOf(folder, name, inputs);
      const before = byName.get(task.id);
      if (before === undefined || before.folder === 'approved') byName.set(task.id, task);
    }
  const tasks = [...byName.values()].sort(inViewOrder);
  const byState = noTasksByState();
  for (const task of tasks) byState[task.state] += 1;
  const folders = Object.fromEntries(
    TASK_FOLDERS.map((folder) => [folder, inputs.listing.names[folder].length]),
  ) as Record<TaskFolder, number>;
  return { tasks, byState, folders };
}

function taskOf(folder: TaskFolder, name: string, inputs: PictureInputs): PictureTask {
  const file = `${inputs.paths[folder]}/${name}`;
  const reading = inputs.readings.get(file) ?? { kind: 'unread' };
  const id = reading.kind === 'read' ? reading.id : idFromFileName(name);
  const base: PictureTask = { id, name, file, folder, state: 'queued' };
  const ended = stateOfFolder(folder);
  if (ended !== null) return endedTask({ ...base, state: ended }, reading, inputs);
  const live = inputs.live?.tasks.find((entry) => entry.name === name);
  if (live !== undefined) return liveTask(base, live, reading);
  const wait = inputs.live?.waitingForAuthor.find((entry) => entry.name === name);
  const counted = withCount(base, reading);
  if (wait !== undefined) return { ...counted, state: stateOfWait(wait), why: wait.message };
  const state = stateOfFile(name, reading, inputs);
  const why = reading.kind === 'refused' ? reading.why : state === 'needs-harness' ? NO_HARNESS_TEXT : undefined;
  return { ...counted, state, ...(why === undefined ? {} : { why }) };
}

/** A task in Blocked/, Review/, Done/ or Rejected/: its count from its head or the daemon's recent list. */
function endedTask(task: PictureTask, reading: FileReading, inputs: PictureInputs): PictureTask {
  const recent = inputs.recent.find(
    (entry) => entry.file.endsWith(`/${task.name}`) && sameFolder(entry.status, task.folder),
  );
  const question = task.folder === 'blocked' ? inputs.questions.get(task.name) : undefined;
  const counted = withCount(task, reading);
  return {
    ...counted,
    ...(counted.iterations === undefined && recent !== undefined ? { iterations: recent.iterations } : {}),
    ...(question === undefined ? {} : { question }),
    ...(recent === undefined ? {} : { endedAtMs: recent.atMs }),
    ...(recent?.reason === undefined ? {} : { reason: recent.reason }),
  };
}

function sameFolder(status: FinishedEntry['status'], folder: TaskFolder): boolean {
  return (status === 'done' && folder === 'done') || (status === 'rejected' && folder === 'rejected');
}

function withCount(task: PictureTask, reading: FileReading): PictureTask {
  if (reading.kind === 'unparsable') return { ...task, iterations: 0 };
  if (reading.kind !== 'read') return task;
  return {
    ...task,
    iterations: reading.iterations,
    ...(reading.maxIterations === undefined ? {} : { maxIterations: reading.maxIterations }),
  };
}

/** A task the daemon (or a foreground run) has in hand. */
function liveTask(base: PictureTask, entry: TaskEntry, reading: FileReading): PictureTask {
  const { id, name: _name, file, phase: _phase, iteration, maxIterations, waitingFor: _for, worker, ...run } = entry;
  const counted = iteration === undefined ? withCount(base, reading) : { ...base, iterations: iteration };
  const why = entry.failure?.message ?? entry.waitingReason;
  // The daemon read the file: its id (an `id:` key) is the task's, whatever the file is called.
  return {
    ...counted,
    id,
    file,
    state: stateOfEntry(entry),
    ...(maxIterations === undefined ? {} : { maxIterations }),
    ...(why === undefined ? {} : { why }),
    ...(worker === undefined ? {} : { worker }),
    run,
  };
}

/** Pure: the state of a task the daemon holds, from its entry in status.json. */
export function stateOfEntry(entry: TaskEntry): TaskStateName {
  if (entry.foreground !== undefined) return 'running';
  if (entry.outage !== undefined) return 'outage';
  switch (entry.phase) {
    case 'running':
      return 'running';
    case 'queued':
      return entry.failure === undefined ? 'queued' : 'failing';
    case 'held':
      return 'held';
    case 'review-slot':
      return 'review-slot';
    case 'stopped':
      return 'stopped';
    case 'waiting':
      return stateOfWaitingFor(entry.waitingFor);
  }
}

function stateOfWaitingFor(why: TaskEntry['waitingFor']): TaskStateName {
  switch (why) {
    case 'usage-limit':
      return 'usage-limit';
    case 'outage':
      return 'outage';
    case 'landing':
      return 'landing';
    case 'retry':
    case undefined:
      return 'retrying';
  }
}

/** Pure: the state of a file in Approved/ that waits for its author or for the order of work. */
export function stateOfWait(wait: Pick<AuthorWait, 'reason'>): TaskStateName {
  const { reason } = wait;
  if (typeof reason === 'object') {
    switch (reason.kind) {
      case 'dependencies':
        return 'waiting-on-dependency';
      case 'not-before':
        return 'scheduled';
      case 'dependency-rejected':
      case 'dependency-cycle':
      case 'dependency-unknown':
        return 'waiting-for-you';
    }
  }
  switch (reason) {
    case 'no-harness':
      return 'needs-harness';
    case 'being-written':
      return 'being-written';
    case 'empty':
    case 'no-sandbox':
    case 'no-change-request':
    case 'unanswered':
    case 'answer-empty':
    case 'answer-misplaced':
    case 'symlink':
    case 'hard-link':
      return 'waiting-for-you';
  }
}

/**
 * Pure: the state of a file in Approved/ that no daemon holds, from its head and its stop flag.
 * With a daemon running, a file it does not list yet is queued (it is settling, or about to be
 * read); without one, a run cut short is `interrupted` until a daemon resumes it.
 */
function stateOfFile(name: string, reading: FileReading, inputs: PictureInputs): TaskStateName {
  if (reading.kind === 'refused') return 'waiting-for-you';
  // With no daemon to say it: a task that names no harness, with no default, waits for its author
  // (as a daemon would say, before its stop flag).
  if (
    inputs.live === null &&
    reading.kind === 'read' &&
    reading.harness === undefined &&
    inputs.defaultHarness === null
  )
    return 'needs-harness';
  if (inputs.listing.stopFlags.has(name.replace(/\.md$/i, ''))) return 'stopped';
  if (reading.kind === 'unparsable') return 'invalid';
  if (reading.kind !== 'read') return 'queued';
  // A daemon that runs takes up a stopped task whose flag is gone, and resumes one cut short.
  if (inputs.live !== null) return 'queued';
  if (reading.status === 'stopped') return 'stopped';
  return reading.status === 'running' || reading.status === 'waiting' || reading.status === 'interrupted'
    ? 'interrupted'
    : 'queued';
}

function inViewOrder(a: PictureTask, b: PictureTask): number {
  return (
    stateRank(a.state) - stateRank(b.state) ||
    (b.endedAtMs ?? 0) - (a.endedAtMs ?? 0) ||
    (a.run?.sinceMs ?? 0) - (b.run?.sinceMs ?? 0) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}
