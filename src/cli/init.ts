import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { didYouMeanSuffix } from '../config/did-you-mean.js';
import { loadConfig } from '../config/load.js';
import { WiggumError } from '../errors.js';
import { scaffoldVault } from '../vault/init.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';

export interface InitOptions {
  /** `--harness NAME`: written as harness.default into the new config. */
  harness?: string;
}

/** `wiggum init [DIR] [--harness NAME]`. */
export async function initCommand(dir: string | undefined, options: InitOptions = {}): Promise<ExitCode> {
  const root = resolve(dir ?? process.cwd());
  const configFile = join(root, '.wiggum', 'config.yaml');
  const hasConfig = existsSync(configFile);
  // The name is checked before anything is created: a typo leaves no half-made vault behind.
  if (options.harness !== undefined) await checkHarness(options.harness, hasConfig ? root : null);
  const { created, sampleLeftOut } = await scaffoldVault(
    root,
    options.harness === undefined ? {} : { harness: options.harness },
  );
  process.stdout.write(
    created.length === 0
      ? `${root} is already a vault: nothing to create\n`
      : `created in ${root}: ${created.join(', ')}\n`,
  );
  if (sampleLeftOut !== null) process.stdout.write(`no sample task added: ${sampleLeftOut}\n`);
  if (options.harness !== undefined && hasConfig) {
    process.stdout.write(
      `${configFile} already exists and was left as it is: set harness.default: ${options.harness} there yourself\n`,
    );
  }
  process.stdout.write('write a task in Drafts/, then move it into Approved/ to run it\n');
  const sample = created.some((file) => file.startsWith('Approved/'))
    ? '   (the sample task runs with the demo agent)'
    : '';
  process.stdout.write(`next: wiggum start --vault ${root}${sample}\n`);
  return EXIT.complete;
}

/** The harness must be one the vault's config (or the built-in one, for a new vault) defines. */
async function checkHarness(name: string, vault: string | null): Promise<void> {
  const config = await loadConfig(vault === null ? {} : { vault });
  const known = Object.keys(config.harnesses);
  if (!known.includes(name)) {
    throw new WiggumError(
      'E_USAGE',
      `--harness ${name}: no such harness${didYouMeanSuffix(name, known)}; the configured ones are ${known.join(', ')}`,
    );
  }
}
