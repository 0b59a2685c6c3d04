import { z } from 'zod';
import { WiggumError } from '../errors.js';
import { iterationRecordSchema } from '../memory/history.js';
import type { IterationRecord } from '../memory/history.js';
import { describeIssues } from '../memory/json-text.js';
import type { PersistenceLoopData } from '../task/render.js';
import { persistenceLoopSchema } from '../task/schema.js';
import { TASK_ID_PATTERN } from '../task/vocabulary.js';
import { COMMIT_PATTERN } from './code-place.js';
import { PROTOCOL_VERSION, checkVersion } from './job-data.js';
import { MEMORY_CAP_BYTES, checkMemorySize, memoryFilesSchema } from './memory-files.js';
import type { MemoryFiles } from './memory-files.js';

/**
 * One line of the task's history with its place in the run: `seq` is its 1-based line number among
 * the history lines of the task's current run (after `history_base`), so it goes on across
 * generations and the host can tell from its own history file which lines it already has.
 */
export interface SequencedRecord {
  seq: number;
  record: IterationRecord;
  /** The end of the iteration's agent output (its log), kept in the vault's session logs by the host. */
  log?: string;
}

/** Who sends a progress message: shown in status and on the Dashboard. */
export interface WorkerRef {
  id: string;
  host: string;
  pid: number;
}

/**
 * What a worker sends as job progress after every iteration (and once, with no records, when it
 * takes a run up: its claim). Full state, never a delta: the newest message alone is enough to
 * write the checkpoint and memory, and BullMQ keeps it in the job when the event stream drops it.
 */
export interface Progress {
  version: typeof PROTOCOL_VERSION;
  taskId: string;
  /** The worker's generation: the job's `attemptsStarted` when this worker took it up (generationOf). */
  generation: number;
  /** The seq of the newest history line of the run (0: none yet). */
  seq: number;
  /** The history lines the host has not confirmed yet, oldest first, ending at `seq` (pendingRecords). */
  records: SequencedRecord[];
  /** The task's `persistence_loop:` after the iteration. */
  checkpoint: PersistenceLoopData;
  memory: MemoryFiles;
  /** The commit pushed to the task's branch after the iteration (null: nothing pushed yet). */
  commit: string | null;
  worker: WorkerRef;
}

/**
 * The generation of a worker's run: how many times the job has been taken up (BullMQ's
 * `attemptsStarted`), read once when the worker takes it. Not `attemptsMade`: a stall is not an
 * attempt, so a worker whose lock lapsed and the one that took the job over would share it, and
 * the zombie could not be told apart. `attemptsStarted` grows with every take-up, a stall's and a
 * hand-back's included. BullMQ versions without it: attemptsMade + 1 (fences retries only).
 */
export function generationOf(job: { attemptsStarted?: number | undefined; attemptsMade: number }): number {
  return job.attemptsStarted !== undefined && job.attemptsStarted > 0 ? job.attemptsStarted : job.attemptsMade + 1;
}

/**
 * The most unconfirmed history lines a progress message carries. The host confirms what it wrote
 * (its acknowledged seq); while it is down the lines pile up in the job's progress, and past this
 * many the oldest are dropped, which the host later sees as a gap.
 */
export const PENDING_RECORDS_CAP = 200;

/** The records a worker sends: those after the host's acknowledged seq, the newest `cap` of them. */
export function pendingRecords(
  records: readonly SequencedRecord[],
  ackedSeq: number,
  cap = PENDING_RECORDS_CAP,
): SequencedRecord[] {
  const pending = records.filter((entry) => entry.seq > ackedSeq);
  return pending.slice(Math.max(0, pending.length - cap));
}

/** What the vault host keeps per task to judge progress: the newest generation and seq it wrote. */
export interface ProgressState {
  generation: number;
  seq: number;
}

export const NO_PROGRESS: ProgressState = { generation: 0, seq: 0 };

/**
 * What the host does with a progress message:
 * - `apply`: write the checkpoint and memory, append `records` (each seq once) to the history;
 * - `ignore-older`: nothing new (a duplicate, or a new generation that resumed behind what is
 *   written); its generation, if newer, is adopted so that the one it replaced is fenced from now on;
 * - `ignore-stale-generation`: a worker whose run was taken over (its lock lapsed): nothing is written;
 * - `gap`: history lines `missing` were dropped before the host saw them (it was down longer than
 *   PENDING_RECORDS_CAP iterations): the checkpoint and memory are written (full state, so the
 *   counters, budgets and resume point stay right), the records it has are appended, and the gap
 *   is logged with its seqs: the history lacks those lines, nothing is counted twice.
 */
export type ProgressDecision =
  | { kind: 'apply'; records: SequencedRecord[]; state: ProgressState }
  | { kind: 'ignore-older'; state: ProgressState }
  | { kind: 'ignore-stale-generation'; state: ProgressState }
  | { kind: 'gap'; missing: { from: number; to: number }; records: SequencedRecord[]; state: ProgressState };

/**
 * The host's rule: "write the checkpoint, history and memory from it, ignoring anything older or
 * from a stale generation". A seq is written at most once, whichever generation sends it, so an
 * iteration that ran twice (a crash, a zombie) is counted once; a generation below the newest seen
 * is never written. Pure: `state` is what the host last wrote; the new state is in the decision.
 */
export function applyProgress(
  state: ProgressState,
  progress: { generation: number; seq: number; records: readonly SequencedRecord[] },
): ProgressDecision {
  if (progress.generation < state.generation) return { kind: 'ignore-stale-generation', state };
  const generation = progress.generation;
  if (progress.seq <= state.seq) return { kind: 'ignore-older', state: { generation, seq: state.seq } };
  const records = progress.records.filter((entry) => entry.seq > state.seq);
  const next = { generation, seq: progress.seq };
  const first = records[0]?.seq ?? progress.seq + 1;
  if (first > state.seq + 1)
    return { kind: 'gap', missing: { from: state.seq + 1, to: first - 1 }, records, state: next };
  return { kind: 'apply', records, state: next };
}

const seqSchema = z.int().min(1);

const progressSchema = z
  .strictObject({
    version: z.literal(PROTOCOL_VERSION),
    taskId: z.string().regex(TASK_ID_PATTERN),
    generation: z.int().min(1),
    seq: z.int().min(0),
    records: z.array(
      z.strictObject({ seq: seqSchema, record: iterationRecordSchema, log: z.string().exactOptional() }),
    ),
    checkpoint: persistenceLoopSchema,
    memory: memoryFilesSchema,
    commit: z.string().regex(COMMIT_PATTERN, { message: 'a full commit id (40 or 64 hex digits)' }).nullable(),
    worker: z.strictObject({ id: z.string().min(1), host: z.string(), pid: z.int() }),
  })
  .superRefine((value, ctx) => {
    // Records in a row, ending at seq: the host appends them as they come.
    value.records.forEach((entry, index) => {
      const expected = value.seq - (value.records.length - 1 - index);
      if (entry.seq !== expected)
        ctx.addIssue({ code: 'custom', path: ['records', index, 'seq'], message: `expected ${expected}` });
    });
  });

/** A progress message as the host reads it. */
export type ParsedProgress = z.output<typeof progressSchema>;

/**
 * Reads a progress message (job.progress or a `progress` event). Another protocol version, or
 * anything malformed, is E_QUEUE_PROTOCOL; memory past the cap E_QUEUE_JOB_TOO_LARGE.
 */
export function parseProgress(value: unknown, capBytes = MEMORY_CAP_BYTES): ParsedProgress {
  checkVersion(value, 'progress');
  const checked = progressSchema.safeParse(value);
  if (!checked.success) {
    throw new WiggumError(
      'E_QUEUE_PROTOCOL',
      `a progress message is not a task run's (${describeIssues(checked.error.issues)}): ignored; the ` +
        "worker that sent it runs another wiggum, or a bug: report it with the worker's log",
      { details: { issues: checked.error.issues.length } },
    );
  }
  checkMemorySize(checked.data.taskId, checked.data.memory, capBytes);
  return checked.data;
}
