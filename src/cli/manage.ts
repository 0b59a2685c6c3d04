import { relative } from 'node:path';
import { systemClock } from '../time/clock.js';
import { resumeTask, stopTask } from '../vault/task-controls.js';
import { sendTaskBack } from '../vault/send-back.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';

/** `wiggum stop ID`: writes `Approved/<name>.stop`; the daemon stops the task at once. */
export async function stopCommand(ref: string, options: VaultOptions): Promise<ExitCode> {
  const { layout } = await openVault(options);
  const { id, flag } = await stopTask(ref, layout, 'wiggum stop', systemClock);
  process.stdout.write(`stop flag written: ${relative(layout.root, flag)} (wiggum resume ${id} removes it)\n`);
  return EXIT.complete;
}

/** `wiggum resume ID`: removes the stop flag; the task continues from its checkpoint. */
export async function resumeCommand(ref: string, options: VaultOptions): Promise<ExitCode> {
  const { layout } = await openVault(options);
  const { id, removed } = await resumeTask(ref, layout);
  process.stdout.write(
    removed
      ? `stop flag removed: ${id} continues from its checkpoint\n`
      : `${id} has no stop flag: nothing to resume\n`,
  );
  return EXIT.complete;
}

/** `wiggum retry ID [--fresh]`: Rejected or Done → Approved. */
export async function retryCommand(ref: string, options: VaultOptions & { fresh?: boolean }): Promise<ExitCode> {
  const { config, layout } = await openVault(options);
  const result = await sendTaskBack(ref, layout, config, { fresh: options.fresh === true, clock: systemClock });
  process.stdout.write(`${result.id}: ${relative(layout.root, result.from)} → ${relative(layout.root, result.to)}\n`);
  if (result.unparsed) {
    process.stdout.write(
      `  it does not parse, so it went back as it was: fix it (wiggum validate "${relative(layout.root, result.to)}" says what is wrong), or it is rejected again\n`,
    );
  }
  process.stdout.write(
    result.archivedTo === null
      ? options.fresh === true
        ? '  it had no session memory; it starts over\n'
        : '  it resumes from its session memory with a fresh iteration budget\n'
      : `  its memory was archived to ${relative(layout.root, result.archivedTo)}; it starts over\n`,
  );
  return EXIT.complete;
}
