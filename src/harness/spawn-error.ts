import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { WiggumError, systemErrorCode } from '../errors.js';

/** What a failed spawn needs to be explained to a person. */
export interface SpawnAttempt {
  command: string;
  cwd: string;
  /** Where the command is configured, e.g. `harnesses.claude.command`. */
  configKey: string | undefined;
}

/**
 * Turns a spawn failure into the error the loop acts on: E_HARNESS_MISSING when the command is not
 * there or cannot be executed (a setup problem: retrying will not help), E_HARNESS_SPAWN otherwise.
 * The OS says ENOENT both for a missing command and for a missing working directory, so the
 * directory is looked at before blaming the command.
 */
export function spawnFailure(attempt: SpawnAttempt, cause: unknown): WiggumError {
  const { command, cwd } = attempt;
  const code = systemErrorCode(cause);
  const fix = `fix ${attempt.configKey ?? 'the command'} in the config`;
  const details = { command, cwd, errno: code };
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    if (!isDirectory(cwd)) {
      return new WiggumError(
        'E_HARNESS_SPAWN',
        `cannot start ${command}: its working directory ${cwd} does not exist or is not a folder`,
        { cause, details },
      );
    }
    if (!command.includes('/')) {
      return new WiggumError('E_HARNESS_MISSING', `harness command "${command}" was not found on PATH; ${fix}`, {
        cause,
        details,
      });
    }
    // A relative path is looked up by the child after it has changed into `cwd`.
    if (exists(resolve(cwd, command))) {
      return new WiggumError(
        'E_HARNESS_MISSING',
        `harness command ${command} exists but the interpreter on its #! line was not found; ${fix}`,
        { cause, details },
      );
    }
    return new WiggumError('E_HARNESS_MISSING', `harness command ${command} was not found; ${fix}`, { cause, details });
  }
  if (code === 'EACCES') {
    return new WiggumError(
      'E_HARNESS_MISSING',
      `harness command ${command} is not executable (permission denied); make it executable (chmod +x), ${fix}`,
      { cause, details },
    );
  }
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new WiggumError('E_HARNESS_SPAWN', `could not start harness command ${command}: ${reason}`, {
    cause,
    details,
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
