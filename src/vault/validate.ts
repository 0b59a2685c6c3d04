import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { checkConfig } from '../config/load.js';
import { missingSecrets } from '../config/notify-secrets.js';
import type { WiggumConfig } from '../config/config.js';
import type { ConfigSources } from '../config/sources.js';
import { isWiggumError, systemErrorCode } from '../errors.js';
import { describeLocation, locateCommand } from '../harness/command-lookup.js';
import type { CommandLocation } from '../harness/command-lookup.js';
import { fileProblem } from '../problem.js';
import type { Problem } from '../problem.js';
import { checkTaskAgainstConfig } from '../task/check.js';
import { NO_HARNESS_TEXT, chooseHarness } from '../task/harness-choice.js';
import type { Task } from '../task/parse.js';
import { readTaskFile } from '../task/read.js';
import { waitReasonOf } from '../task/readiness.js';
import { vaultLayout } from './layout.js';
import { isTaskFileName } from './names.js';
import { linkRefusalOf, linkRefusalText } from './links.js';

export interface ValidateRequest {
  vault: string;
  config: ConfigSources;
  /** Files to check; none means every task in Approved/. */
  files: string[];
  /** The PATH a harness command is looked up on (wiggum's own); absent, commands are not looked up. */
  pathEnv?: string | undefined;
  /** The environment a webhook's secret_env is looked up in; absent, secrets are not looked up. */
  env?: NodeJS.ProcessEnv | undefined;
}

/**
 * Problems make a vault invalid (exit 2). Warnings do not: they are about this machine, not the
 * files (a harness command not installed here), and `wiggum doctor` is the check that fails on them.
 */
export interface ValidateReport {
  problems: Problem[];
  warnings: Problem[];
}

/** Every problem in the configuration and the given task files (or all of Approved/), and the warnings. */
export async function validateVault(request: ValidateRequest): Promise<ValidateReport> {
  const checked = await checkConfig(request.config);
  if (!checked.ok) {
    // The task files are still read, against the defaults, so one pass shows every problem; what
    // depends on the config (its harnesses, checks, workdirs) waits until the config is fixed.
    const defaults = await checkConfig({});
    if (!defaults.ok) return { problems: checked.problems, warnings: [] };
    const tasks = await checkTasks(request, defaults.config, false);
    return { problems: [...checked.problems, ...tasks.problems], warnings: [] };
  }
  const report = await checkTasks(request, checked.config, true);
  if (request.env !== undefined) report.warnings.push(...secretWarnings(checked.config, request.env));
  return report;
}

/** A warning per webhook whose secret variable is not set here (see missingSecrets). */
function secretWarnings(config: WiggumConfig, env: NodeJS.ProcessEnv): Problem[] {
  const file = config.sources[config.sources.length - 1] ?? '(config)';
  return missingSecrets(config.notify, env).map((missing) => ({
    file,
    line: 1,
    col: 1,
    key: `notify.${missing.index}.secret_env`,
    message: `warning: notify.${missing.index}.secret_env: the environment variable ${missing.variable} is not set here, so ${missing.label} cannot sign its deliveries: set it where wiggum start runs (the daemon says so at start too)`,
  }));
}

async function checkTasks(
  request: ValidateRequest,
  config: WiggumConfig,
  configValid: boolean,
): Promise<ValidateReport> {
  const layout = vaultLayout(request.vault, config);

  let files = request.files;
  if (files.length === 0) {
    try {
      files = (await readdir(layout.approved))
        .filter(isTaskFileName)
        .sort()
        .map((name) => join(layout.approved, name));
    } catch (error) {
      if (systemErrorCode(error) !== 'ENOENT') throw error;
      // With the config unread, the folder may just have another name there.
      if (!configValid) return { problems: [], warnings: [] };
      return {
        problems: [
          fileProblem(
            layout.approved,
            `there is no ${config.folders.approved}/ folder here: run wiggum init, or pass --vault DIR`,
          ),
        ],
        warnings: [],
      };
    }
  }

  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const locations = new Map<string, Promise<CommandLocation>>();
  const locate = (command: string): Promise<CommandLocation> => {
    const known = locations.get(command) ?? locateCommand(command, { pathEnv: request.pathEnv, cwd: request.vault });
    locations.set(command, known);
    return known;
  };
  for (const file of files) {
    const stats = await lstat(file).catch(() => null);
    const refusal = stats === null ? null : linkRefusalOf(stats);
    if (refusal !== null) {
      // The daemon and `wiggum run` refuse it too (src/vault/links.ts).
      problems.push(fileProblem(file, linkRefusalText(refusal)));
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
    if (!configValid) {
      if (!read.result.ok) problems.push(...read.result.problems);
      continue;
    }
    // Neither is rejected by the daemon, which leaves them waiting in Approved/; both are worth saying.
    const wait = waitReasonOf(read.text, read.result, config.harness.defaultName);
    if (wait !== null) {
      problems.push(
        wait === 'empty'
          ? fileProblem(file, 'empty: not a task, and never run until something is written in it')
          : { file, line: 1, col: 1, key: 'harness', message: NO_HARNESS_TEXT },
      );
      if (wait === 'empty') continue;
    }
    if (!read.result.ok) {
      problems.push(...read.result.problems);
      continue;
    }
    problems.push(...(await checkTaskAgainstConfig(read.result.task, config, layout)));
    if (request.pathEnv !== undefined) {
      const warning = await missingCommandWarning(read.result.task, config, locate);
      if (warning !== null) warnings.push(warning);
    }
  }
  return { problems, warnings };
}

/** A warning when the harness a task runs with (its own or the default) has a command that is not here. */
async function missingCommandWarning(
  task: Task,
  config: WiggumConfig,
  locate: (command: string) => Promise<CommandLocation>,
): Promise<Problem | null> {
  const choice = chooseHarness(undefined, task.frontmatter.harness, config.harness.defaultName);
  const harness = choice === null ? undefined : config.harnesses[choice.name];
  if (choice === null || harness === undefined) return null;
  const where = describeLocation(await locate(harness.command), `harnesses.${harness.name}.command`);
  if (where.ok) return null;
  const named =
    choice.from === 'default' ? `runs with harness.default "${harness.name}"` : `names harness "${harness.name}"`;
  return {
    file: task.file,
    ...(task.keyPositions.harness ?? { line: 1, col: 1 }),
    key: 'harness',
    message: `warning: the task ${named}, whose command ${where.text}: ${where.fix ?? 'fix the command'} (wiggum doctor checks this machine)`,
  };
}
