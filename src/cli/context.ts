import { changeContext } from '../memory/pending-context.js';
import { systemClock } from '../time/clock.js';
import { findTaskIn } from '../vault/find-task.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';

/**
 * `wiggum context add ID TEXT` / `wiggum context clear ID`: guidance for a running loop, read by its
 * next iteration under "## Additional Context (added by user mid-loop)". The task must exist (by
 * id, file name or path): a typo would otherwise leave guidance in a session folder no task reads.
 */
export async function contextCommand(
  action: 'add' | 'clear',
  ref: string,
  text: string | undefined,
  options: VaultOptions,
): Promise<ExitCode> {
  const { layout } = await openVault(options);
  const taskId = (await findTaskIn(ref, layout, ['approved', 'rejected', 'done'])).id;
  const where = await changeContext(
    layout.state,
    taskId,
    action === 'add' ? (text ?? '') : null,
    systemClock,
    process.env,
  );
  const target =
    where === 'session'
      ? 'its session'
      : where === 'run'
        ? 'the run in progress (taken in when this iteration ends)'
        : 'the task (it has not started yet; its first iteration reads it)';
  process.stdout.write(
    action === 'add' ? `context added to ${target}: ${taskId}\n` : `context cleared for ${taskId}\n`,
  );
  return EXIT.complete;
}
