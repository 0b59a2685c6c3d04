import type { WiggumConfig } from '../config/config.js';
import { didYouMeanSuffix } from '../config/did-you-mean.js';
import { isWiggumError } from '../errors.js';
import type { Problem } from '../problem.js';
import type { Task } from './parse.js';
import { prdFileProblem } from './prd-file.js';
import { resolveWorkdir } from './workdir.js';

/** Where workdirs are resolved from: the vault root and its workspaces folder (a VaultLayout fits). */
export interface WorkdirPlaces {
  root: string;
  workspaces: string;
}

/**
 * The checks a task needs the configuration for: its harness and verify check must be defined
 * there (a task can only name them), its workdir must exist inside the allowed folders, and its
 * prd: file must exist inside the vault or that workdir.
 */
export async function checkTaskAgainstConfig(
  task: Task,
  config: WiggumConfig,
  places: WorkdirPlaces,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  const at = (key: string): { line: number; col: number } => task.keyPositions[key] ?? { line: 1, col: 1 };
  const { harness, verify, workdir } = task.frontmatter;

  if (harness !== undefined && !(harness in config.harnesses)) {
    const known = Object.keys(config.harnesses);
    problems.push({
      file: task.file,
      ...at('harness'),
      key: 'harness',
      message: `harness: unknown harness "${harness}"${didYouMeanSuffix(harness, known)}: the configured harnesses are ${known.join(', ')}`,
    });
  }
  if (verify !== undefined && !(verify in config.checks)) {
    const known = Object.keys(config.checks);
    problems.push({
      file: task.file,
      ...at('verify'),
      key: 'verify',
      message: `verify: unknown check "${verify}": ${known.length === 0 ? 'no checks are configured (add one under checks:)' : `the configured checks are ${known.join(', ')}`}`,
    });
  }
  let resolved: string | null = null;
  try {
    resolved = await resolveWorkdir(task.id, workdir, {
      vaultRoot: places.root,
      allowedRoots: config.allowedWorkdirs,
      workspaces: places.workspaces,
    });
  } catch (error) {
    if (!isWiggumError(error, 'E_WORKDIR')) throw error;
    problems.push({ file: task.file, ...at('workdir'), key: 'workdir', message: `workdir: ${error.message}` });
  }
  const prd = await prdFileProblem(task, resolved, places.root);
  if (prd !== null) problems.push({ file: task.file, ...at('prd'), key: 'prd', message: prd });
  return problems;
}
