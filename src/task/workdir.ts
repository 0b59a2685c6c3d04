import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { resolvePath } from '../config/sources.js';
import { WiggumError, systemErrorCode } from '../errors.js';

export interface WorkdirRules {
  vaultRoot: string;
  /** Absolute roots besides the vault. */
  allowedRoots: string[];
  /** Where tasks without a `workdir` work: `<vault>/.wiggum/workspaces`. */
  workspaces: string;
}

/**
 * The task's working directory, checked: `~` expanded, relative to the vault, every symlink
 * resolved, and inside the vault or an allowed root. A task without `workdir` gets its own folder
 * under `.wiggum/workspaces/`, so tasks never share one by accident. Throws E_WORKDIR.
 */
export async function resolveWorkdir(
  taskId: string,
  workdir: string | undefined,
  rules: WorkdirRules,
): Promise<string> {
  if (workdir === undefined) return join(rules.workspaces, taskId);
  const wanted = resolvePath(workdir, rules.vaultRoot);
  let real: string;
  try {
    real = await realpath(wanted);
  } catch (error) {
    const code = systemErrorCode(error);
    throw new WiggumError(
      'E_WORKDIR',
      code === 'ENOENT'
        ? `workdir ${wanted} does not exist: create it or fix the task's workdir`
        : `workdir ${wanted} cannot be used (${code ?? String(error)})`,
      { cause: error, details: { workdir: wanted } },
    );
  }
  const roots = await Promise.all(
    [rules.vaultRoot, ...rules.allowedRoots].map(async (root) => realpath(root).catch(() => resolve(root))),
  );
  if (!roots.some((root) => isInside(real, root))) {
    throw new WiggumError(
      'E_WORKDIR',
      `workdir ${wanted} is outside the allowed folders (${roots.join(', ')}): add its parent to vault.allowed_workdirs in the config`,
      { details: { workdir: wanted, real, allowed: roots } },
    );
  }
  return real;
}

export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
