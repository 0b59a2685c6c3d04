import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { loadConfig } from '../config/load.js';
import { WiggumError, systemErrorCode } from '../errors.js';
import { isLockOwnerAlive, readLockOwner } from '../lock/owner-lock.js';
import { createLogger } from '../log/logger.js';
import type { LogLevel } from '../log/logger.js';
import type { RunOverrides } from '../loop/prepare.js';
import { changeContext } from '../memory/pending-context.js';
import { chooseSettings, describeRecorded, unrecorded } from '../ralph/loop-settings.js';
import type { LoopSettings } from '../ralph/loop-settings.js';
import { formatLoops, listLoops } from '../ralph/list-loops.js';
import { checkChangeId, ensureRalphTask, noLoopToResume, ralphLayout, readRalphTask } from '../ralph/ralph-task.js';
import { ralphRoot, strandedLoopsNote } from '../ralph/ralph-root.js';
import { recordedSettings } from '../ralph/settings-file.js';
import { systemClock } from '../time/clock.js';
import { findTaskFile, parsedTask } from '../vault/find-task.js';
import type { VaultLayout } from '../vault/layout.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { runInForeground } from './foreground.js';
import { checkedOverrides } from './run.js';
import { describeTask } from '../inspect/task-status.js';

export interface RalphOptions extends RunOverrides {
  /** Required, except with --list (and --status, which then lists the loops too). */
  change?: string;
  list?: boolean;
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
 * `wiggum ralph [PROMPT] --change ID`: the loop without a vault. One loop in the current
 * repository (its top, from any subfolder; the current folder outside a repository), its memory in
 * `.wiggum/sessions/<ID>/`. With --add-context, --clear-context or --status it only does that and
 * exits; --list (or --status without --change) lists the loops.
 */
export async function ralphCommand(prompt: string | undefined, options: RalphOptions): Promise<ExitCode> {
  const root = await ralphRoot(process.cwd());
  const layout = ralphLayout(root);
  const stranded = strandedLoopsNote(process.cwd(), root);
  if (stranded !== null) process.stderr.write(`wiggum: ${stranded}\n`);
  if (options.list === true || (options.status === true && options.change === undefined)) {
    const loops = await listLoops(layout);
    process.stdout.write(options.json === true ? `${JSON.stringify(loops, null, 2)}\n` : formatLoops(loops));
    return EXIT.complete;
  }
  if (options.change === undefined) {
    throw new WiggumError(
      'E_USAGE',
      'ralph needs --change ID, the name of the loop (wiggum ralph --list shows the loops there are)',
    );
  }
  checkChangeId(options.change);
  return ralphChange(prompt, { ...options, change: options.change }, root, layout);
}

async function ralphChange(
  prompt: string | undefined,
  options: RalphOptions & { change: string },
  root: string,
  layout: VaultLayout,
): Promise<ExitCode> {
  if (options.addContext !== undefined || options.clearContext === true) {
    if (options.clearContext === true) {
      await changeContext(layout.state, options.change, null, systemClock);
      process.stdout.write(`context cleared for ${options.change}\n`);
    }
    if (options.addContext !== undefined) {
      await changeContext(layout.state, options.change, options.addContext, systemClock, process.env);
      process.stdout.write(`context added for ${options.change}: the next iteration reads it\n`);
    }
    return EXIT.complete;
  }

  if (options.status === true) {
    const found = await findTaskFile(options.change, layout);
    const task = parsedTask(found, root);
    const detail = await describeTask(found, layout, null, options.json === true);
    process.stdout.write(withRecorded(detail, recordedSettings(task.frontmatter, task.file), options.json === true));
    return EXIT.complete;
  }

  const text = await promptText(prompt, options.promptFile);
  const config = await loadConfig({ vault: root, ...(options.config === undefined ? {} : { file: options.config }) });
  const flags = checkedOverrides(options, config);
  const logger = createLogger({ level: options.logLevel ?? config.log.level, fd: 2, relativeTo: root });
  const existing = await readRalphTask(layout, options.change);
  if (existing === null && text === null) throw noLoopToResume(layout, options.change);
  const recorded = existing === null ? {} : recordedSettings(existing.frontmatter, existing.file);
  const { settings, harnessSource, switches } = chooseSettings({
    flags,
    recorded,
    configuredHarness: config.harness.defaultName,
    harnesses: Object.keys(config.harnesses),
  });
  // Checked before the file is touched: a loop another wiggum runs keeps the settings it runs with.
  await refuseIfRunning(layout, options.change);
  const { file, action } = await ensureRalphTask(layout, options.change, text, unrecorded(settings, recorded));
  for (const line of switches) process.stderr.write(`wiggum: ${line}\n`);
  logger.info(
    {
      event: 'ralph.loop-ready',
      change: options.change,
      file: relative(root, file),
      harness: settings.harness,
      harnessFrom: harnessSource,
    },
    action === 'created'
      ? 'new loop'
      : action === 'updated'
        ? 'new prompt for an existing loop: its memory is kept'
        : 'resuming the loop',
  );
  // The loop reads harness, max_iterations and completion_promise from the file just written
  // (flags given now still override, as in `wiggum run`); fail_fast is no task key, so it goes here.
  const overrides: RunOverrides = {
    ...flags,
    ...(settings.failFast === undefined ? {} : { failFast: settings.failFast }),
  };
  // ralph is started in the repository to work on it, as ralph.sh does: on the loop's branch in
  // that working copy, not in a worktree of its own (docs/decisions.md).
  const { code } = await runInForeground({
    file,
    overrides,
    stream: options.stream,
    config,
    layout,
    logger,
    workInPlace: true,
  });
  return code;
}

/** A live owner of the change's task lock: E_LOCKED (exit 2) naming it, before anything changes. */
async function refuseIfRunning(layout: VaultLayout, change: string): Promise<void> {
  const lock = join(layout.taskLocks, `${change}.lock`);
  const owner = await readLockOwner(lock);
  if (owner !== null && isLockOwnerAlive(owner)) {
    throw new WiggumError(
      'E_LOCKED',
      `the loop for --change ${change} is already running (pid ${owner.pid} on ${owner.host}, since ${owner.startedAt}): wait for it to end or stop it first`,
    );
  }
}

/** `--status` with the loop's recorded settings: a line after the heading, or a `recorded` field in JSON. */
function withRecorded(detail: string, recorded: LoopSettings, json: boolean): string {
  if (json) return `${JSON.stringify({ ...(JSON.parse(detail) as Record<string, unknown>), recorded }, null, 2)}\n`;
  const lines = detail.split('\n');
  lines.splice(1, 0, `  ${describeRecorded(recorded)}`);
  return lines.join('\n');
}

async function promptText(prompt: string | undefined, promptFile: string | undefined): Promise<string | null> {
  if (prompt !== undefined && promptFile !== undefined)
    throw new WiggumError('E_USAGE', 'give the prompt either as an argument or with --prompt-file, not both');
  if (promptFile === undefined) return prompt ?? null;
  try {
    return await readFile(promptFile, 'utf8');
  } catch (error) {
    throw new WiggumError(
      'E_USAGE',
      `cannot read --prompt-file ${promptFile} (${systemErrorCode(error) ?? String(error)})`,
      { cause: error },
    );
  }
}
