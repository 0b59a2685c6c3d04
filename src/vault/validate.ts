import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { checkConfig } from '../config/load.js';
import type { ConfigSources } from '../config/sources.js';
import { isWiggumError, systemErrorCode } from '../errors.js';
import { fileProblem } from '../problem.js';
import type { Problem } from '../problem.js';
import { checkTaskAgainstConfig } from '../task/check.js';
import { NO_HARNESS_TEXT } from '../task/harness-choice.js';
import { readTaskFile } from '../task/read.js';
import { waitReasonOf } from '../task/readiness.js';
import { vaultLayout } from './layout.js';
import { isTaskFileName } from './names.js';

export interface ValidateRequest {
  vault: string;
  config: ConfigSources;
  /** Files to check; none means every task in Approved/. */
  files: string[];
}

/** Every problem in the configuration and the given task files (or all of Approved/). */
export async function validateVault(request: ValidateRequest): Promise<Problem[]> {
  const checked = await checkConfig(request.config);
  if (!checked.ok) return checked.problems;
  const layout = vaultLayout(request.vault, checked.config);

  let files = request.files;
  if (files.length === 0) {
    try {
      files = (await readdir(layout.approved)).filter(isTaskFileName).sort().map((name) => join(layout.approved, name));
    } catch (error) {
      if (systemErrorCode(error) !== 'ENOENT') throw error;
      return [fileProblem(layout.approved, `there is no ${checked.config.folders.approved}/ folder here: run wiggum init, or pass --vault DIR`)];
    }
  }

  const problems: Problem[] = [];
  for (const file of files) {
    const stats = await lstat(file).catch(() => null);
    if (stats?.isSymbolicLink() === true) {
      problems.push(fileProblem(file, 'a symbolic link: wiggum never runs a link (it could point anywhere); move the task file itself into Approved/'));
      continue;
    }
    if (stats?.isDirectory() === true) {
      problems.push(fileProblem(file, 'a folder, not a task file'));
      continue;
    }
    let read;
    try {
      read = await readTaskFile(file);
    } catch (error) {
      if (!isWiggumError(error, 'E_TASK_NOT_FOUND')) throw error;
      problems.push(fileProblem(file, 'no such file'));
      continue;
    }
    // Neither is rejected by the daemon, which leaves them waiting in Approved/; both are worth saying.
    const wait = waitReasonOf(read.text, read.result, checked.config.harness.defaultName);
    if (wait !== null) {
      problems.push(wait === 'empty' ? fileProblem(file, 'empty: not a task, and never run until something is written in it') : { file, line: 1, col: 1, key: 'harness', message: NO_HARNESS_TEXT });
      if (wait === 'empty') continue;
    }
    if (!read.result.ok) {
      problems.push(...read.result.problems);
      continue;
    }
    problems.push(...(await checkTaskAgainstConfig(read.result.task, checked.config, layout)));
  }
  return problems;
}
