import { resolve } from 'node:path';
import { formatProblem } from '../problem.js';
import { findVaultRoot, requireVault } from '../vault/find-root.js';
import { validateVault } from '../vault/validate.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { plural } from '../plural.js';

export interface ValidateOptions {
  vault?: string;
  config?: string;
}

/**
 * `wiggum validate [FILE…]`: one `path:line:col: message` line per problem, then per warning (a
 * harness command missing on this machine); 0 when no problem (warnings alone included), 2 otherwise.
 */
export async function validateCommand(files: string[], options: ValidateOptions): Promise<ExitCode> {
  const vault = options.vault ?? (files[0] === undefined ? process.cwd() : await findVaultRoot(files[0]));
  // Files named on their own may sit outside any vault (checked against the defaults); a vault
  // named with --vault, or the current folder checked whole, must be one.
  if (options.vault !== undefined || files.length === 0) await requireVault(vault);
  const { problems, warnings } = await validateVault({
    vault,
    files: files.map((file) => resolve(file)),
    config: { vault, ...(options.config === undefined ? {} : { file: options.config }) },
    pathEnv: process.env.PATH ?? '',
    env: process.env,
  });
  for (const problem of [...problems, ...warnings]) process.stdout.write(`${formatProblem(problem)}\n`);
  if (problems.length === 0) {
    const noted = warnings.length === 0 ? '' : ` (${plural(warnings.length, 'warning')} above)`;
    process.stdout.write(
      files.length === 0
        ? `ok: the configuration and every task in ${vault} are valid${noted}\n`
        : `ok: ${plural(files.length, 'file')} valid${noted}\n`,
    );
    return EXIT.complete;
  }
  process.stderr.write(`${plural(problems.length, 'problem')} found\n`);
  return EXIT.usage;
}
