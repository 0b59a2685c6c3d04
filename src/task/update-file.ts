import { statSync } from 'node:fs';
import { WiggumError, isWiggumError } from '../errors.js';
import type { Task } from './parse.js';
import { parseTask, rememberParse } from './parse.js';
import { splicedTask } from './spliced-task.js';
import { formatProblem } from '../problem.js';
import type { Problem } from '../problem.js';
import { readTaskFileSync } from './read.js';
import type { FileIdentity } from './read-text.js';
import { TASK_LIMITS } from './limits.js';
import { appendWithin, foldReports } from './note-room.js';
import { withOwnedKeys } from './render.js';
import { tickChecklistLines } from './stories.js';
import type { OwnedKeys } from './render.js';
import { RenameRefused, writeFileAtomic } from '../store/atomic-write.js';

export interface TaskFileWrite {
  keys: OwnedKeys;
  /** A Markdown section to append (a completion summary or failure report). */
  section?: string;
  /** Ids of checklist stories to tick (`- [ ]` → `- [x]`): the ones passing when a task is done. */
  tick?: string[];
  /** A write that must be durable before the new text shows (see AtomicWriteOptions.renameAfter). */
  after?: Promise<void>;
  /** See AtomicWriteOptions.deferFolderSync. */
  deferFolderSync?: (synced: Promise<void>) => void;
}

export interface TaskFileWritten {
  task: Task;
  /** The user had changed the file since it was last read; their change was kept. */
  merged: boolean;
  /** wiggum's own keys, as another program had rewritten them, did not read; they were written again. */
  replacedUnreadKeys: Problem[];
}

const MAX_RACES = 5;

/**
 * Writes wiggum's keys into a task file without losing anything the user wrote. The file is read
 * again first: if the user changed it since `lastText` was read, the keys are applied to their new
 * version (the change is merged, never overwritten). If their version does not parse, as happens
 * halfway through an edit, nothing is written and E_CHECKPOINT_CONFLICT says where it fails. A
 * change that lands between that read and the rename is caught by comparing the file's identity.
 */
export async function updateTaskFile(file: string, lastText: string, write: TaskFileWrite): Promise<TaskFileWritten> {
  for (let race = 0; race < MAX_RACES; race += 1) {
    let read;
    try {
      // Small reads and stats are done synchronously here: microseconds each, where a thread-pool
      // round trip for each of them cost more than the whole parse (npm run bench).
      read = readTaskFileSync(file, { ownedKeysReplaceable: true });
    } catch (error) {
      if (isWiggumError(error, 'E_TASK_NOT_FOUND')) {
        throw new WiggumError('E_TASK_GONE', `${file} was moved or deleted while its loop was running`, {
          cause: error,
          details: { file },
        });
      }
      throw error;
    }
    if (!read.result.ok) {
      throw new WiggumError(
        'E_CHECKPOINT_CONFLICT',
        `${file} was edited and no longer parses, so wiggum did not overwrite it: ` +
          `${read.result.problems.map(formatProblem).join('; ')}. Fix the file and the checkpoint is written again`,
        { details: { file, problems: read.result.problems } },
      );
    }
    const current = read.result.task;
    let next = withOwnedKeys(current, write.keys);
    if (write.tick !== undefined && write.tick.length > 0) {
      // Only the frontmatter changed above: the body moved by the change in length.
      const bodyStart = current.layout.bodyStart + (next.length - current.text.length);
      const ids = new Set(write.tick);
      const lines = current.stories.filter((story) => ids.has(story.id) && !story.checked).map((story) => story.line);
      next = next.slice(0, bodyStart) + tickChecklistLines(next.slice(bodyStart), lines);
    }
    // Within the task-size limit, so the file is read again (retry): earlier reports fold first.
    const fold = write.section === undefined && Buffer.byteLength(next) > TASK_LIMITS.maxBytes;
    if (write.section !== undefined) next = appendWithin(next, write.section, current.layout.eol);
    else if (fold) next = foldReports(next, current.layout.eol);
    // A checkpoint alone (no tick, no section, nothing folded) changes only wiggum's keys: its parse is derived.
    const keysOnly = write.tick === undefined && write.section === undefined && !fold;
    const spliced = keysOnly ? splicedTask(current, write.keys, next) : null;
    if (spliced !== null) rememberParse(spliced);
    const reparsed = spliced === null ? parseTask(file, next) : { ok: true as const, task: spliced };
    if (!reparsed.ok) {
      throw new WiggumError(
        'E_INTERNAL',
        `the checkpoint for ${file} would not parse back (${reparsed.problems.map(formatProblem).join('; ')}); nothing was written`,
        {
          details: { file },
        },
      );
    }
    const identity = read.stat;
    if (!unchangedSince(file, identity)) continue;
    try {
      await writeFileAtomic(file, next, {
        ...(write.after === undefined ? {} : { renameAfter: write.after }),
        ...(write.deferFolderSync === undefined ? {} : { deferFolderSync: write.deferFolderSync }),
        // Asked again right before the rename: the fsyncs before it may take long on a busy disk,
        // and an edit saved (or the file deleted) meanwhile must be merged (or left gone), not undone.
        stillCurrent: () => unchangedSince(file, identity),
      });
    } catch (error) {
      if (error instanceof RenameRefused) continue;
      throw error;
    }
    return { task: reparsed.task, merged: read.text !== lastText, replacedUnreadKeys: current.unreadOwnedKeys ?? [] };
  }
  throw new WiggumError(
    'E_CHECKPOINT_CONFLICT',
    `${file} kept changing while wiggum tried to write its checkpoint; it will try again`,
    {
      details: { file },
    },
  );
}

function unchangedSince(file: string, identity: FileIdentity): boolean {
  try {
    const now = statSync(file);
    return now.ino === identity.ino && now.size === identity.size && now.mtimeMs === identity.mtimeMs;
  } catch {
    return false;
  }
}
