import { z } from 'zod';
import { WiggumError } from '../errors.js';

/**
 * A task's memory as it travels between the vault host and a worker: the text of prd.json,
 * progress.txt and context.md (null: the file does not exist). The host is their only writer; a
 * worker gets them in the job and sends them back, whole, after every iteration.
 */
export interface MemoryFiles {
  prd: string | null;
  progress: string | null;
  context: string | null;
}

export const MEMORY_FILE_NAMES = { prd: 'prd.json', progress: 'progress.txt', context: 'context.md' } as const;

/**
 * The most a job or a progress message carries of memory, all three files together. Job data and
 * progress live in Redis's memory and are sent whole after every iteration; a memory that outgrows
 * this belongs in the task's branch, not in the queue.
 */
export const MEMORY_CAP_BYTES = 1024 * 1024;

export const memoryFilesSchema = z.strictObject({
  prd: z.string().nullable(),
  progress: z.string().nullable(),
  context: z.string().nullable(),
});

/** The size of each file in UTF-8 bytes, and their total. */
export function memorySizes(files: MemoryFiles): { total: number; each: Record<keyof MemoryFiles, number> } {
  const size = (text: string | null): number => (text === null ? 0 : Buffer.byteLength(text, 'utf8'));
  const each = { prd: size(files.prd), progress: size(files.progress), context: size(files.context) };
  return { total: each.prd + each.progress + each.context, each };
}

/**
 * Refuses memory files past the cap with E_QUEUE_JOB_TOO_LARGE, naming the largest file, the sizes
 * and what to do. Checked where the files are put into a job (the host) and into a progress message
 * (the worker), so that neither side ever sends what the other would have to refuse.
 */
export function checkMemorySize(taskId: string, files: MemoryFiles, capBytes = MEMORY_CAP_BYTES): void {
  const { total, each } = memorySizes(files);
  if (total <= capBytes) return;
  const largest = (Object.keys(each) as (keyof MemoryFiles)[]).reduce((a, b) => (each[b] > each[a] ? b : a));
  const name = MEMORY_FILE_NAMES[largest];
  throw new WiggumError(
    'E_QUEUE_JOB_TOO_LARGE',
    `task ${taskId}: its memory files come to ${bytes(total)}, more than the ${bytes(capBytes)} a queued run ` +
      `carries; ${name} alone is ${bytes(each[largest])}. Shorten ${name} (keep what the agent still needs, ` +
      `move the rest into a file in the task's branch), then move the task back to Approved/`,
    { details: { taskId, totalBytes: total, capBytes, file: name, fileBytes: each[largest] } },
  );
}

/** A size as a person reads it: bytes below 1 KiB, else KiB or MiB with one decimal. */
function bytes(count: number): string {
  if (count < 1024) return `${count} bytes`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB`;
  return `${(count / (1024 * 1024)).toFixed(1)} MiB`;
}
