import { parseTask } from './parse.js';
import type { ParseOptions, ParseResult } from './parse.js';
import { readTaskText, readTaskTextSync } from './read-text.js';
import type { FileIdentity } from './read-text.js';

/** What was read from disk, with the file's identity at that moment (to notice later edits). */
export interface ReadTask {
  result: ParseResult;
  /** The decoded text, or null when the bytes could not be decoded. */
  text: string | null;
  stat: FileIdentity;
}

/**
 * Reads and parses a task file. The size is checked on the open file before any byte is read, so a
 * huge file costs nothing; a file that vanished raises E_TASK_NOT_FOUND; bad content comes back as
 * problems, never as an exception.
 */
export async function readTaskFile(path: string, options: ParseOptions = {}): Promise<ReadTask> {
  const { text, problems, stat } = await readTaskText(path);
  return { result: text === null ? { ok: false, problems } : parseTask(path, text, options), text, stat };
}

/** {@link readTaskFile}, synchronously: for the checkpoint write, where the read is microseconds. */
export function readTaskFileSync(path: string, options: ParseOptions = {}): ReadTask {
  const { text, problems, stat } = readTaskTextSync(path);
  return { result: text === null ? { ok: false, problems } : parseTask(path, text, options), text, stat };
}
