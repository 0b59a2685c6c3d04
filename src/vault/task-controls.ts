import { rm, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { systemErrorCode } from '../errors.js';
import type { Clock } from '../time/clock.js';
import { findTaskIn, folderName } from './find-task.js';
import type { FoundTask, VaultFolder } from './find-task.js';
import type { VaultLayout } from './layout.js';
import { stopFlagFor } from './layout.js';

/**
 * Stop and resume, as `wiggum stop`/`resume` and the HTTP API do them: the stop flag beside the task
 * file is the interface, which the daemon (or a `wiggum run`) acts on. `by` says who wrote the flag,
 * and `clock` when.
 */
export async function stopTask(
  ref: string,
  layout: VaultLayout,
  by: string,
  clock: Clock,
): Promise<{ id: string; flag: string }> {
  const task = await findTaskIn(ref, layout, ['approved'], ended(layout, 'stop'));
  const flag = stopFlagFor(task.file);
  await writeFile(flag, `stopped with ${by} at ${new Date(clock.now()).toISOString()}\n`);
  return { id: task.id, flag };
}

/** Removes the stop flag; `removed` false: there was none. */
export async function resumeTask(ref: string, layout: VaultLayout): Promise<{ id: string; removed: boolean }> {
  const task = await findTaskIn(ref, layout, ['approved'], ended(layout, 'resume'));
  try {
    await rm(stopFlagFor(task.file));
    return { id: task.id, removed: true };
  } catch (error) {
    if (systemErrorCode(error) !== 'ENOENT') throw error;
    return { id: task.id, removed: false };
  }
}

/** What stop or resume says of a task that has already ended (in Done/ or Rejected/). */
function ended(layout: VaultLayout, verb: 'stop' | 'resume'): (found: FoundTask, folder: VaultFolder) => string {
  return (found, folder) => {
    const file = relative(layout.root, found.file);
    const again = `; wiggum retry ${found.id} sends it back to ${folderName(layout, 'approved')} to run again`;
    return `${file} has ended (it is in ${folderName(layout, folder)}): there is nothing to ${verb}${again}`;
  };
}
