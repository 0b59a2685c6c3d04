import { lstat, stat } from 'node:fs/promises';
import { basename, dirname, relative, resolve } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { didYouMeanSuffix } from '../config/did-you-mean.js';
import { loadConfig } from '../config/load.js';
import { WiggumError } from '../errors.js';
import { createLogger } from '../log/logger.js';
import type { LogLevel } from '../log/logger.js';
import type { RunOverrides } from '../loop/prepare.js';
import { findTaskVault, isInside, notInAVault, requireVault } from '../vault/find-root.js';
import { ambiguous, folderName, lookupFolders, resolveTask } from '../vault/find-task.js';
import { TASK_FOLDERS } from '../task/states.js';
import type { VaultFolder } from '../vault/find-task.js';
import { vaultLayout } from '../vault/layout.js';
import type { VaultLayout } from '../vault/layout.js';
import { linkRefusalOf, linkRefusalText } from '../vault/links.js';
import type { ExitCode } from './exit-codes.js';
import { runInForeground } from './foreground.js';

export interface RunOptions extends RunOverrides {
  stream: boolean;
  vault?: string;
  config?: string;
  logLevel?: LogLevel;
}

/**
 * `wiggum run FILE`: one task through the loop in the foreground, exactly as the daemon runs it.
 * FILE is a path; one that does not exist is looked up in the vault as a name, id or vault-relative
 * path. A task in Done/ or Rejected/ is refused (exit 2): its run has ended there. So is a file no
 * vault holds: the run would make Done/ and .wiggum/ beside it.
 */
export async function runCommand(file: string, options: RunOptions): Promise<ExitCode> {
  const given = resolve(file);
  const vault = await vaultOf(given, options.vault);
  const config = await loadConfig({ vault, ...(options.config === undefined ? {} : { file: options.config }) });
  const layout = vaultLayout(vault, config);
  const path = (await exists(given)) ? given : ((await fileInVault(file, layout)) ?? given);
  if (!(await isInside(path, vault))) throw notInAVault(path);
  await refuseLink(path, layout);
  await refuseEnded(path, layout);
  const overrides = checkedOverrides(options, config);
  const logger = createLogger({ level: options.logLevel ?? config.log.level, fd: 2, relativeTo: vault });
  const { code } = await runInForeground({ file: path, overrides, stream: options.stream, config, layout, logger });
  return code;
}

/**
 * The vault the task belongs to: --vault (which must be one), else the nearest folder above the
 * file holding Approved/. Nothing is created when there is none (E_USAGE naming `wiggum init`).
 */
async function vaultOf(given: string, option: string | undefined): Promise<string> {
  if (option !== undefined) {
    await requireVault(option);
    return resolve(option);
  }
  const found = await findTaskVault(given, async (root) => (await loadConfig({ vault: root })).folders.approved);
  if (found === null) throw notInAVault(given);
  return found;
}

/** What `wiggum run` says of a task in Done/ or Rejected/, and how to run it again. */
export function endedRunMessage(file: string, folder: Exclude<VaultFolder, 'approved'>, layout: VaultLayout): string {
  const shown = relative(layout.root, file);
  const approved = folderName(layout, 'approved');
  const id = basename(file, '.md');
  // A task waiting on a person is not run past them: what moves it on is theirs to do.
  if (folder === 'blocked')
    return `${shown} is in ${folderName(layout, folder)}: its agent asked a question. Answer it (wiggum answer ${id} "…", or under ## Answer, then move it back to ${approved}) and it runs again`;
  if (folder === 'review')
    return `${shown} is in ${folderName(layout, folder)}: complete, waiting for a person. wiggum approve ${id} moves it to Done/; wiggum request-changes ${id} "…" sends it back to ${approved} with what to change`;
  const state = folder === 'rejected' ? 'its run has ended' : 'it is done';
  return `${shown} is in ${folderName(layout, folder)}: ${state}. wiggum retry "${basename(file, '.md')}" sends it back to ${approved} (keeping its memory; --fresh starts over), where it runs again; so does moving it back into ${approved}`;
}

/**
 * Refuses a task file in Done/ or Rejected/ (by any path to those folders). Its state says it has
 * ended, so the loop would only "finish its move" into the folder it is already in.
 */
async function refuseEnded(file: string, layout: VaultLayout): Promise<void> {
  const folder = await stat(dirname(file)).catch(() => null);
  if (folder === null) return;
  // Every folder of the table of task states but Approved/: a task there is not the run's to take.
  for (const key of TASK_FOLDERS.filter((name) => name !== 'approved')) {
    const ended = await stat(layout[key]).catch(() => null);
    if (ended !== null && ended.ino === folder.ino && ended.dev === folder.dev) {
      throw new WiggumError('E_USAGE', endedRunMessage(file, key, layout), { details: { file } });
    }
  }
}

/**
 * Refuses a link (exit 2, before any session is opened) exactly as the daemon and `validate` do
 * (src/vault/links.ts), so that a file never runs one way and is left the other.
 */
async function refuseLink(file: string, layout: VaultLayout): Promise<void> {
  const stats = await lstat(file).catch(() => null);
  const reason = stats === null ? null : linkRefusalOf(stats);
  if (reason !== null)
    throw new WiggumError('E_USAGE', `${relative(layout.root, file)} is ${linkRefusalText(reason)}`, {
      details: { file, reason },
    });
}

/** The file a name, id or vault-relative path stands for, or null when none does. */
async function fileInVault(ref: string, layout: VaultLayout): Promise<string | null> {
  const match = await resolveTask(ref, lookupFolders(layout), { root: layout.root });
  if (match.kind === 'found') return match.entry.file;
  if (match.kind === 'ambiguous') throw ambiguous(ref, match.candidates, layout.root);
  return null;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The loop overrides among a command's options, checked against the config before anything runs:
 * a flag naming an unknown harness is the user's typo (E_USAGE, exit 2), not the task's fault, so
 * the task is left untouched.
 */
export function checkedOverrides(options: RunOverrides, config: WiggumConfig): RunOverrides {
  if (options.harness !== undefined && !(options.harness in config.harnesses)) {
    const known = Object.keys(config.harnesses);
    throw new WiggumError(
      'E_USAGE',
      `--harness ${options.harness}: no such harness${didYouMeanSuffix(options.harness, known)}; the configured ones are ${known.join(', ')}`,
    );
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
