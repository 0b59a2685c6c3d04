import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { loadConfig } from '../config/load.js';
import { WiggumError, systemErrorCode } from '../errors.js';
import { createLogger } from '../log/logger.js';
import type { LogLevel } from '../log/logger.js';
import type { RunOverrides } from '../loop/prepare.js';
import { changeContext } from '../memory/pending-context.js';
import { checkChangeId, ensureRalphTask, ralphLayout } from '../ralph/ralph-task.js';
import { systemClock } from '../time/clock.js';
import { findTask } from '../vault/find-task.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { runInForeground } from './foreground.js';
import { checkedOverrides } from './run.js';
import { describeTask } from './task-status.js';

export interface RalphOptions extends RunOverrides {
  change: string;
  promptFile?: string;
  addContext?: string;
  clearContext?: boolean;
  status?: boolean;
  json?: boolean;
  stream: boolean;
  config?: string;
  logLevel?: LogLevel;
}

/**
 * `wiggum ralph [PROMPT] --change ID`: seed 001's `ralph` command. One loop in the current folder
 * (usually a git repository), its memory in `.wiggum/sessions/<ID>/`. With --add-context,
 * --clear-context or --status it only does that and exits.
 */
export async function ralphCommand(prompt: string | undefined, options: RalphOptions): Promise<ExitCode> {
  checkChangeId(options.change);
  const root = process.cwd();
  const layout = ralphLayout(root);

  if (options.addContext !== undefined || options.clearContext === true) {
    if (options.clearContext === true) {
      await changeContext(layout.state, options.change, null, systemClock);
      process.stdout.write(`context cleared for ${options.change}\n`);
    }
    if (options.addContext !== undefined) {
      await changeContext(layout.state, options.change, options.addContext, systemClock);
      process.stdout.write(`context added for ${options.change}: the next iteration reads it\n`);
    }
    return EXIT.complete;
  }

  if (options.status === true) {
    const task = await findTask(options.change, [layout.approved, layout.done, layout.rejected]);
    process.stdout.write(await describeTask(task, layout, null, options.json === true));
    return EXIT.complete;
  }

  const text = await promptText(prompt, options.promptFile);
  const config = await loadConfig({ vault: root, ...(options.config === undefined ? {} : { file: options.config }) });
  const overrides = checkedOverrides(options, config);
  const logger = createLogger({ level: options.logLevel ?? config.log.level, fd: 2, relativeTo: root });
  const { file, action } = await ensureRalphTask(layout, options.change, text);
  logger.info({ change: options.change, file: relative(root, file) }, action === 'created' ? 'new loop' : action === 'updated' ? 'new prompt for an existing loop: its memory is kept' : 'resuming the loop');
  const { code } = await runInForeground({ file, overrides, stream: options.stream, config, layout, logger });
  return code;
}

async function promptText(prompt: string | undefined, promptFile: string | undefined): Promise<string | null> {
  if (prompt !== undefined && promptFile !== undefined) throw new WiggumError('E_USAGE', 'give the prompt either as an argument or with --prompt-file, not both');
  if (promptFile === undefined) return prompt ?? null;
  try {
    return await readFile(promptFile, 'utf8');
  } catch (error) {
    throw new WiggumError('E_USAGE', `cannot read --prompt-file ${promptFile} (${systemErrorCode(error) ?? String(error)})`, { cause: error });
  }
}
