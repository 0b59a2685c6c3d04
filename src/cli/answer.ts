import { answerTask, answeredText } from '../vault/answer.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';

/** `wiggum answer ID TEXT`: the answer under `## Answer`, and the file back to Approved/. */
export async function answerCommand(ref: string, text: string, options: VaultOptions): Promise<ExitCode> {
  const { layout } = await openVault(options);
  const result = await answerTask(ref, text, layout);
  process.stdout.write(answeredText(result, layout));
  return EXIT.complete;
}
