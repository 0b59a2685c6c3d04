import { WiggumError } from '../errors.js';

/** Where the harness a task runs with came from, or that there is none. */
export type HarnessChoice = { name: string; from: 'flag' | 'task' | 'default' } | null;

/**
 * The harness a task runs with: a command-line flag, else the task's `harness:`, else the config's
 * `harness.default`; null when none names one. There is no implicit agent: such a task waits.
 */
export function chooseHarness(
  flag: string | undefined,
  task: string | undefined,
  defaultName: string | null,
): HarnessChoice {
  if (flag !== undefined && flag !== '') return { name: flag, from: 'flag' };
  if (task !== undefined && task !== '') return { name: task, from: 'task' };
  if (defaultName !== null) return { name: defaultName, from: 'default' };
  return null;
}

/** What is wrong with a task that names no harness, and what a person does about it. */
export const NO_HARNESS_TEXT =
  'names no harness and the config sets no harness.default, so it is not run: add `harness: NAME` to its frontmatter (a harness from the config, e.g. claude), or set harness.default in .wiggum/config.yaml';

/** Why a task waits, with its name. */
export function noHarnessMessage(name: string): string {
  return `${name} ${NO_HARNESS_TEXT}`;
}

/** The error `wiggum run` and the loop raise for a task with no harness (a usage error, not a rejection). */
export function noHarnessError(name: string): WiggumError {
  return new WiggumError('E_NO_HARNESS', `${noHarnessMessage(name)} (or pass --harness NAME)`);
}
