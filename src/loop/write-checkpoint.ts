import { isWiggumError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { formatProblem } from '../problem.js';
import { updateTaskFile } from '../task/update-file.js';
import type { TaskFileWrite } from '../task/update-file.js';
import type { Clock } from '../time/clock.js';
import type { SecretMask } from '../secret-mask.js';

/** How long a checkpoint waits for a user's edit that does not parse yet to be finished. */
const CONFLICT_WAIT_MS = 1000;

export interface CheckpointDeps {
  logger: Logger;
  clock: Clock;
  /** Secret values hidden from the keys and the section written (what the agent's text put there). */
  mask?: SecretMask;
}

/**
 * Writes a checkpoint, riding out a user edit that does not parse yet. Returns the new text, or null
 * when the file is gone or stays unparseable (the caller keeps going; the file is never overwritten).
 */
export async function writeCheckpoint(
  file: string,
  lastText: string,
  write: TaskFileWrite,
  deps: CheckpointDeps,
  retries = 0,
): Promise<string | null> {
  const mask = deps.mask;
  const masked: TaskFileWrite =
    mask === undefined || mask.empty
      ? write
      : {
          ...write,
          keys: mask.json(write.keys),
          ...(write.section === undefined ? {} : { section: mask.text(write.section) }),
        };
  for (let attempt = 0; ; attempt += 1) {
    try {
      const written = await updateTaskFile(file, lastText, masked);
      if (written.replacedUnreadKeys.length > 0) {
        deps.logger.warn(
          { event: 'checkpoint.keys-rewritten', file, problems: written.replacedUnreadKeys.map(formatProblem) },
          "another program had rewritten wiggum's own keys in a shape wiggum does not read; they were written again, and the rest of the file was kept",
        );
      }
      return written.task.text;
    } catch (error) {
      if (isWiggumError(error, 'E_CHECKPOINT_CONFLICT') && attempt < retries) {
        await deps.clock.sleep(CONFLICT_WAIT_MS);
        continue;
      }
      if (isWiggumError(error, 'E_CHECKPOINT_CONFLICT') || isWiggumError(error, 'E_TASK_GONE')) {
        deps.logger.warn({ event: 'checkpoint.skipped', file, code: error.code }, error.message);
        return null;
      }
      throw error;
    }
  }
}
