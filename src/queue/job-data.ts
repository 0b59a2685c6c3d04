import { z } from 'zod';
import { WiggumError } from '../errors.js';
import type { TaskSettings } from '../loop/task-settings.js';
import { describeIssues } from '../memory/json-text.js';
import type { PersistenceLoopData } from '../task/render.js';
import { persistenceLoopSchema } from '../task/schema.js';
import { TASK_ID_PATTERN } from '../task/vocabulary.js';
import { codePlaceSchema } from './code-place.js';
import type { CodePlace } from './code-place.js';
import { MEMORY_CAP_BYTES, checkMemorySize, memoryFilesSchema } from './memory-files.js';
import type { MemoryFiles } from './memory-files.js';
import { settingsDataSchema, settingsToData } from './settings-data.js';
import type { JobSettings, SettingsData } from './settings-data.js';

/**
 * The version of the job data and progress messages this wiggum sends and reads. 2: the harness and
 * the check by name only, never a command.
 */
export const PROTOCOL_VERSION = 2;

/**
 * A job is one run of one task, not one iteration: the workdir stays on one worker for the whole
 * run and moves only on a crash or a hand-back. Built by the vault host from the task file, its
 * session memory and its branch; a worker reads it and never touches the vault.
 */
export interface JobData {
  version: typeof PROTOCOL_VERSION;
  taskId: string;
  /** The task file's name in Approved/, for messages and reports. */
  fileName: string;
  /** The task file's text as the host read it: the prompt is built from it on the worker. */
  taskText: string;
  settings: SettingsData;
  /** The account a usage limit of this task's harness pauses (the harness's `account:`, else its name). */
  account: string;
  /** The task's `persistence_loop:` when the job was built (null: it never ran); progress supersedes it. */
  checkpoint: PersistenceLoopData | null;
  memory: MemoryFiles;
  code: CodePlace;
  /** The history lines of the task's current run the host holds: the worker's first seq is the next one. */
  seq: number;
  /**
   * The newest generation the host has seen for the task: a worker's generation is this plus the
   * job's take-ups, so generations keep growing when the host adds the job again (Redis lost).
   */
  generationBase: number;
}

/**
 * The job id of a task's run: one per task, so that adding the job again while it is queued or
 * running is a no-op (BullMQ ignores an add whose id exists). Task ids are already in a safe
 * alphabet (no `:`, which BullMQ refuses in a custom id); the prefix keeps an all-digit task id from
 * reading as one of BullMQ's own numeric ids.
 */
export function jobIdFor(taskId: string): string {
  if (!TASK_ID_PATTERN.test(taskId)) {
    throw new WiggumError(
      'E_QUEUE_PROTOCOL',
      `"${taskId}" is not a task id (letters, digits, ".", "_" and "-", starting with a letter or digit): ` +
        'give the task an id: key in that alphabet',
      { details: { taskId } },
    );
  }
  return `task-${taskId}`;
}

/** The task id a job id names, or null when the job is not a task run's. */
export function taskIdOfJob(jobId: string): string | null {
  const id = jobId.startsWith('task-') ? jobId.slice('task-'.length) : '';
  return TASK_ID_PATTERN.test(id) ? id : null;
}

/** What the host builds a job from: the job's fields, with the settings as the host resolved them. */
export type JobDataInput = Omit<JobData, 'version' | 'settings'> & { settings: TaskSettings };

/**
 * The job data of a task's run, checked as the worker will check it, so that the host never
 * enqueues what a worker would refuse: memory past the cap is E_QUEUE_JOB_TOO_LARGE, anything else
 * malformed E_QUEUE_PROTOCOL.
 */
export function buildJobData(input: JobDataInput, capBytes = MEMORY_CAP_BYTES): JobData {
  jobIdFor(input.taskId);
  checkMemorySize(input.taskId, input.memory, capBytes);
  const data: JobData = { ...input, version: PROTOCOL_VERSION, settings: settingsToData(input.settings) };
  parseJobData(JSON.parse(JSON.stringify(data)) as unknown, capBytes);
  return data;
}

const jobDataSchema = z.strictObject({
  version: z.literal(PROTOCOL_VERSION),
  taskId: z.string().regex(TASK_ID_PATTERN),
  fileName: z.string().min(1),
  taskText: z.string(),
  settings: settingsDataSchema,
  account: z.string().min(1),
  checkpoint: persistenceLoopSchema.nullable(),
  memory: memoryFilesSchema,
  code: codePlaceSchema,
  seq: z.int().min(0),
  generationBase: z.int().min(0),
});

/** A job's data as a worker reads it: the settings with their patterns compiled. */
export type ParsedJobData = Omit<JobData, 'settings' | 'checkpoint'> & {
  settings: JobSettings;
  checkpoint: z.output<typeof persistenceLoopSchema> | null;
};

/**
 * Reads a job's data back (from Redis, as JSON gave it). Another protocol version, or anything
 * malformed, is E_QUEUE_PROTOCOL saying which; memory past the cap is E_QUEUE_JOB_TOO_LARGE.
 */
export function parseJobData(value: unknown, capBytes = MEMORY_CAP_BYTES): ParsedJobData {
  checkVersion(value, 'job');
  const checked = jobDataSchema.safeParse(value);
  if (!checked.success) {
    throw new WiggumError(
      'E_QUEUE_PROTOCOL',
      `a queued job's data is not a task run's (${describeIssues(checked.error.issues)}): the job was not ` +
        'added by a wiggum vault host; remove it from the queue and let the host add the task again',
      { details: { issues: checked.error.issues.length } },
    );
  }
  checkMemorySize(checked.data.taskId, checked.data.memory, capBytes);
  return checked.data;
}

/**
 * A message of another protocol version says so before anything else: the fix is to run one
 * wiggum version everywhere, not to look at the fields.
 */
export function checkVersion(value: unknown, what: 'job' | 'progress'): void {
  const version = typeof value === 'object' && value !== null ? (value as { version?: unknown }).version : undefined;
  if (version === PROTOCOL_VERSION) return;
  const shown = version === undefined ? 'none' : JSON.stringify(version);
  throw new WiggumError(
    'E_QUEUE_PROTOCOL',
    `a queued ${what === 'job' ? "job's data" : 'progress message'} has protocol version ${shown}, and this ` +
      `wiggum speaks version ${PROTOCOL_VERSION}: run the same wiggum version on the vault host and every worker`,
    { details: { version: version ?? null, expected: PROTOCOL_VERSION } },
  );
}
