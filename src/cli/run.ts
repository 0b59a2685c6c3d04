import { resolve } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { loadConfig } from '../config/load.js';
import { WiggumError } from '../errors.js';
import { createLogger } from '../log/logger.js';
import type { LogLevel } from '../log/logger.js';
import type { RunOverrides } from '../loop/prepare.js';
import { findVaultRoot } from '../vault/find-root.js';
import { vaultLayout } from '../vault/layout.js';
import type { ExitCode } from './exit-codes.js';
import { runInForeground } from './foreground.js';

export interface RunOptions extends RunOverrides {
  stream: boolean;
  vault?: string;
  config?: string;
  logLevel?: LogLevel;
}

/** `wiggum run FILE`: one task through the loop in the foreground, exactly as the daemon runs it. */
export async function runCommand(file: string, options: RunOptions): Promise<ExitCode> {
  const path = resolve(file);
  const vault = options.vault ?? (await findVaultRoot(path));
  const config = await loadConfig({ vault, ...(options.config === undefined ? {} : { file: options.config }) });
  const overrides = checkedOverrides(options, config);
  const logger = createLogger({ level: options.logLevel ?? config.log.level, fd: 2, relativeTo: vault });
  const { code } = await runInForeground({ file: path, overrides, stream: options.stream, config, layout: vaultLayout(vault, config), logger });
  return code;
}

/**
 * The loop overrides among a command's options, checked against the config before anything runs:
 * a flag naming an unknown harness is the user's typo (E_USAGE, exit 2), not the task's fault, so
 * the task is left untouched.
 */
export function checkedOverrides(options: RunOverrides, config: WiggumConfig): RunOverrides {
  if (options.harness !== undefined && !(options.harness in config.harnesses)) {
    throw new WiggumError('E_USAGE', `--harness ${options.harness}: no such harness; the configured ones are ${Object.keys(config.harnesses).join(', ')}`);
  }
  return overridesFrom(options);
}

/** The loop overrides among a command's options, without undefined values. */
function overridesFrom(options: RunOverrides): RunOverrides {
  const overrides: RunOverrides = {};
  if (options.harness !== undefined) overrides.harness = options.harness;
  if (options.maxIterations !== undefined) overrides.maxIterations = options.maxIterations;
  if (options.failFast !== undefined) overrides.failFast = options.failFast;
  if (options.completionPromise !== undefined) overrides.completionPromise = options.completionPromise;
  return overrides;
}
