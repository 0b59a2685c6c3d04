import { rm, writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { systemErrorCode } from '../errors.js';
import { systemClock } from '../time/clock.js';
import { findTask } from '../vault/find-task.js';
import { scaffoldVault } from '../vault/init.js';
import { stopFlagFor } from '../vault/layout.js';
import { retryTask } from '../vault/retry.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';

/** `wiggum stop ID`: writes `Approved/<name>.stop`; the daemon stops the task at once. */
export async function stopCommand(id: string, options: VaultOptions): Promise<ExitCode> {
  const { layout } = await openVault(options);
  const task = await findTask(id, [layout.approved]);
  const flag = stopFlagFor(task.file);
  await writeFile(flag, `stopped with wiggum stop at ${new Date().toISOString()}\n`);
  process.stdout.write(`stop flag written: ${relative(layout.root, flag)} (wiggum resume ${task.id} removes it)\n`);
  return EXIT.complete;
}

/** `wiggum resume ID`: removes the stop flag; the task continues from its checkpoint. */
export async function resumeCommand(id: string, options: VaultOptions): Promise<ExitCode> {
  const { layout } = await openVault(options);
  const task = await findTask(id, [layout.approved]);
  const flag = stopFlagFor(task.file);
  try {
    await rm(flag);
  } catch (error) {
    if (systemErrorCode(error) !== 'ENOENT') throw error;
    process.stdout.write(`${task.id} has no stop flag: nothing to resume\n`);
    return EXIT.complete;
  }
  process.stdout.write(`stop flag removed: ${task.id} continues from its checkpoint\n`);
  return EXIT.complete;
}

/** `wiggum retry ID [--fresh]`: Rejected → Approved. */
export async function retryCommand(id: string, options: VaultOptions & { fresh?: boolean }): Promise<ExitCode> {
  const { config, layout } = await openVault(options);
  const result = await retryTask(id, layout, config, { fresh: options.fresh === true, clock: systemClock });
  process.stdout.write(`${result.id}: ${relative(layout.root, result.from)} → ${relative(layout.root, result.to)}\n`);
  process.stdout.write(
    result.archivedTo === null
      ? options.fresh === true
        ? '  it had no session memory; it starts over\n'
        : '  it resumes from its session memory with a fresh iteration budget\n'
      : `  its memory was archived to ${relative(layout.root, result.archivedTo)}; it starts over\n`,
  );
  return EXIT.complete;
}

/** `wiggum init [DIR]`. */
export async function initCommand(dir: string | undefined): Promise<ExitCode> {
  const root = resolve(dir ?? process.cwd());
  const created = await scaffoldVault(root);
  process.stdout.write(created.length === 0 ? `${root} is already a vault: nothing to create\n` : `created in ${root}: ${created.join(', ')}\n`);
  process.stdout.write(`next: wiggum start --vault ${root}   (the sample task runs with the demo agent)\n`);
  return EXIT.complete;
}
