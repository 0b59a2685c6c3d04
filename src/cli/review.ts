import { relative } from 'node:path';
import { approveTask, requestChanges } from '../vault/review-moves.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';

/** `wiggum approve ID`: a task waiting for review goes to Done/, approved. */
export async function approveCommand(ref: string, options: VaultOptions): Promise<ExitCode> {
  const { layout } = await openVault(options);
  const moved = await approveTask(ref, layout);
  process.stdout.write(
    `${moved.id}: approved, ${relative(layout.root, moved.from)} → ${relative(layout.root, moved.to)}\n`,
  );
  return EXIT.complete;
}

/** `wiggum request-changes ID TEXT`: the request is written into the task, which goes back to Approved/. */
export async function requestChangesCommand(ref: string, text: string, options: VaultOptions): Promise<ExitCode> {
  const { layout } = await openVault(options);
  const moved = await requestChanges(ref, text, layout);
  process.stdout.write(
    `${moved.id}: changes requested, ${relative(layout.root, moved.from)} → ${relative(layout.root, moved.to)}\n` +
      '  it runs again with the request in its prompt, and returns to review once it claims completion again\n',
  );
  return EXIT.complete;
}
