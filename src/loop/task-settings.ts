import type { LandMode } from '../config/schema.js';
import type { CheckDefinition, HarnessDefinition, LoopConfig, WiggumConfig } from '../config/config.js';
import { WiggumError } from '../errors.js';
import { chooseHarness, noHarnessError } from '../task/harness-choice.js';
import type { TaskFrontmatter } from '../task/schema.js';
import { taskBudget } from './budget.js';

/** What a run may override on top of the task and the config (`wiggum run`/`ralph` flags). */
export interface RunOverrides {
  harness?: string;
  maxIterations?: number;
  failFast?: boolean;
  completionPromise?: string;
}

/** Where a setting came from: a flag of this run, the task's frontmatter, or the config. */
export type SettingOrigin = 'flag' | 'task' | 'config';

/** The settings a task's loop runs with, before anything is read from disk. */
export interface TaskSettings {
  harness: HarnessDefinition;
  verify: CheckDefinition | null;
  /** The task's `workdir:` as written (resolved and checked later), or null: its own workspace. */
  workdir: string | null;
  /** The task's `branch:`, or null: the prd file's `branchName`, read later, may name one. */
  branch: string | null;
  /** Where a new branch starts: the task's `base:`, else `git.base`; null: the repository's current branch. */
  base: { ref: string; from: 'task' | 'config' } | null;
  /** How the branch lands once the task is complete: the task's `land:`, else `git.land`. */
  land: LandMode;
  maxIterations: number;
  promise: string;
  /** The config's loop settings with this run's `failFast` and the task's budgets. */
  loop: LoopConfig;
  /** Where each setting that a flag or the task can override came from. */
  origins: SettingOrigins;
}

export interface SettingOrigins {
  harness: SettingOrigin;
  maxIterations: SettingOrigin;
  promise: SettingOrigin;
  failFast: 'flag' | 'config';
  maxTokens: 'task' | 'config';
  maxCostUsd: 'task' | 'config';
  maxDurationMs: 'task' | 'config';
}

/** A setting that names something the config does not define, or a harness nobody named. */
export type SettingProblem =
  | { kind: 'no-harness' }
  | { kind: 'unknown-harness'; name: string; from: SettingOrigin; known: readonly string[] }
  | { kind: 'unknown-check'; name: string; from: 'task' };

export type TaskSettingsResult =
  { kind: 'settings'; settings: TaskSettings } | { kind: 'problem'; problem: SettingProblem };

/** The frontmatter keys that shape a task's loop. */
export type SettingKeys = Pick<
  TaskFrontmatter,
  | 'harness'
  | 'verify'
  | 'workdir'
  | 'branch'
  | 'base'
  | 'land'
  | 'max_iterations'
  | 'completion_promise'
  | 'max_tokens'
  | 'max_cost_usd'
  | 'max_duration'
>;

/**
 * Which setting wins: a flag of this run, else the task's frontmatter, else the config. Only the
 * top-level keys count: the `persistence_loop:` block is wiggum's record of a run (its
 * `max_iterations` is what the last checkpoint ran with), never a setting, so that a bound the user
 * raises in the key is not undone by the record. An empty `--harness` is no choice (the task's
 * or the default applies); the other flags arrive checked (`--max-iterations` is a positive
 * integer) and are taken as given. Pure: the caller turns a problem into its error.
 */
export function taskSettings(flags: RunOverrides, frontmatter: SettingKeys, config: WiggumConfig): TaskSettingsResult {
  const choice = chooseHarness(flags.harness, frontmatter.harness, config.harness.defaultName);
  if (choice === null) return { kind: 'problem', problem: { kind: 'no-harness' } };
  const harnessFrom = choice.from === 'default' ? 'config' : choice.from;
  const harness = config.harnesses[choice.name];
  if (harness === undefined) {
    const known = Object.keys(config.harnesses);
    return { kind: 'problem', problem: { kind: 'unknown-harness', name: choice.name, from: harnessFrom, known } };
  }
  const verify = frontmatter.verify === undefined ? null : (config.checks[frontmatter.verify] ?? null);
  if (frontmatter.verify !== undefined && verify === null)
    return { kind: 'problem', problem: { kind: 'unknown-check', name: frontmatter.verify, from: 'task' } };

  const maxIterations = pick(flags.maxIterations, frontmatter.max_iterations, config.loop.maxIterations);
  const promise = pick(flags.completionPromise, frontmatter.completion_promise, config.loop.completionPromise);
  return {
    kind: 'settings',
    settings: {
      harness,
      verify,
      workdir: frontmatter.workdir ?? null,
      branch: frontmatter.branch ?? null,
      base: baseOf(frontmatter.base, config.git.base),
      land: frontmatter.land ?? config.git.land,
      maxIterations: maxIterations.value,
      promise: promise.value,
      loop: {
        ...config.loop,
        failFast: flags.failFast ?? config.loop.failFast,
        budget: taskBudget(frontmatter, config.loop.budget),
      },
      origins: {
        harness: harnessFrom,
        maxIterations: maxIterations.from,
        promise: promise.from,
        failFast: flags.failFast === undefined ? 'config' : 'flag',
        maxTokens: frontmatter.max_tokens === undefined ? 'config' : 'task',
        maxCostUsd: frontmatter.max_cost_usd === undefined ? 'config' : 'task',
        maxDurationMs: frontmatter.max_duration === undefined ? 'config' : 'task',
      },
    },
  };
}

function pick<T>(flag: T | undefined, task: T | undefined, config: T): { value: T; from: SettingOrigin } {
  if (flag !== undefined) return { value: flag, from: 'flag' };
  if (task !== undefined) return { value: task, from: 'task' };
  return { value: config, from: 'config' };
}

/** The task's `base:` wins over the config's `git.base`; neither: the current branch (null). */
export function baseOf(task: string | undefined, config: string | null): TaskSettings['base'] {
  if (task !== undefined) return { ref: task, from: 'task' };
  return config === null ? null : { ref: config, from: 'config' };
}

/** Where a harness name was written, in the words a user finds it by. */
const HARNESS_FROM: Record<SettingOrigin, string> = {
  flag: '--harness',
  task: "the task's harness:",
  config: 'harness.default in the config',
};

/** The error a problem is raised as; `fileName` names the task for a person. */
export function settingError(problem: SettingProblem, fileName: string): WiggumError {
  switch (problem.kind) {
    case 'no-harness':
      return noHarnessError(fileName);
    case 'unknown-harness':
      return new WiggumError(
        'E_HARNESS_UNKNOWN',
        `unknown harness "${problem.name}" (${HARNESS_FROM[problem.from]}): the configured harnesses are ${problem.known.join(', ')}`,
        { details: { key: 'harness', value: problem.name, from: problem.from } },
      );
    case 'unknown-check':
      return new WiggumError(
        'E_TASK_SCHEMA',
        `unknown verify check "${problem.name}" (the task's verify:): add it under checks: in the config`,
        { details: { key: 'verify', value: problem.name, from: problem.from } },
      );
  }
}
