import { isWiggumError } from '../errors.js';
import { changeContext } from '../memory/pending-context.js';
import { systemClock } from '../time/clock.js';
import { findTask } from '../vault/find-task.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';

/**
 * `wiggum context add ID TEXT` / `wiggum context clear ID`: guidance for a running loop, read by its
 * next iteration under "## Additional Context (added by user mid-loop)".
 */
export async function contextCommand(action: 'add' | 'clear', id: string, text: string | undefined, options: VaultOptions): Promise<ExitCode> {
  const { layout } = await openVault(options);
  const taskId = await findTask(id, [layout.approved, layout.rejected, layout.done]).then(
    (task) => task.id,
    (error: unknown) => {
      // A task that is not in the vault yet may still get context, under the id it will have.
      if (isWiggumError(error, 'E_TASK_NOT_FOUND')) return id;
      throw error;
    },
  );
  const where = await changeContext(layout.state, taskId, action === 'add' ? (text ?? '') : null, systemClock);
  const target = where === 'session' ? 'its session' : 'the task (it has not started yet; its first iteration reads it)';
  process.stdout.write(action === 'add' ? `context added to ${target}: ${taskId}\n` : `context cleared for ${taskId}\n`);
  return EXIT.complete;
}
