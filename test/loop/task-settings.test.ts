import { describe, expect, test } from 'vitest';
import type { WiggumConfig } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load.js';
import { isWiggumError } from '../../src/errors.js';
import { baseOf, settingError, taskSettings } from '../../src/loop/task-settings.js';
import type { RunOverrides, SettingProblem, TaskSettings } from '../../src/loop/task-settings.js';
import type { TaskFrontmatter } from '../../src/task/schema.js';

// The shipped defaults (config/default.yaml: harnesses demo, claude, codex, …; 100 iterations,
// COMPLETE, no budgets), with a default harness, a check and budgets set as a vault would.
const shipped = await loadConfig();
const config: WiggumConfig = {
  ...shipped,
  harness: { ...shipped.harness, defaultName: 'demo' },
  checks: { tests: { name: 'tests', command: 'npm', args: ['test'], env: {}, timeoutMs: 60_000 } },
  loop: {
    ...shipped.loop,
    maxIterations: 100,
    completionPromise: 'COMPLETE',
    failFast: false,
    budget: { maxTokens: 500_000, maxCostUsd: 5, maxDurationMs: 3_600_000 },
  },
};
const noDefault: WiggumConfig = { ...config, harness: { ...config.harness, defaultName: null } };

/** A task's frontmatter as parsed, `persistence_loop:` block included. */
type Frontmatter = Partial<TaskFrontmatter>;

/** The settings a row checks, by name rather than by whole definitions. */
function shown(settings: TaskSettings) {
  return {
    harness: settings.harness.name,
    verify: settings.verify?.name ?? null,
    workdir: settings.workdir,
    branch: settings.branch,
    maxIterations: settings.maxIterations,
    promise: settings.promise,
    failFast: settings.loop.failFast,
    budget: settings.loop.budget,
    origins: settings.origins,
  };
}

describe('taskSettings: a flag, else the task, else the config', () => {
  const cases: [string, RunOverrides, Frontmatter, WiggumConfig, Partial<ReturnType<typeof shown>>][] = [
    [
      'nothing given → the config for everything',
      {},
      {},
      config,
      {
        harness: 'demo',
        verify: null,
        workdir: null,
        branch: null,
        maxIterations: 100,
        promise: 'COMPLETE',
        failFast: false,
        budget: { maxTokens: 500_000, maxCostUsd: 5, maxDurationMs: 3_600_000 },
        origins: {
          harness: 'config',
          maxIterations: 'config',
          promise: 'config',
          failFast: 'config',
          maxTokens: 'config',
          maxCostUsd: 'config',
          maxDurationMs: 'config',
        },
      },
    ],
    // harness
    [
      'harness: the flag wins over the task and the default',
      { harness: 'codex' },
      { harness: 'claude' },
      config,
      { harness: 'codex', origins: expect.objectContaining({ harness: 'flag' }) as never },
    ],
    [
      "harness: the task's wins over the default",
      {},
      { harness: 'claude' },
      config,
      { harness: 'claude', origins: expect.objectContaining({ harness: 'task' }) as never },
    ],
    [
      "harness: an empty --harness is no choice, the task's applies",
      { harness: '' },
      { harness: 'claude' },
      config,
      { harness: 'claude', origins: expect.objectContaining({ harness: 'task' }) as never },
    ],
    [
      'harness: an empty task harness: is no choice, the default applies',
      {},
      { harness: '' },
      config,
      { harness: 'demo', origins: expect.objectContaining({ harness: 'config' }) as never },
    ],
    // max_iterations
    [
      'max_iterations: the flag wins over the task and the config',
      { maxIterations: 3 },
      { max_iterations: 7 },
      config,
      { maxIterations: 3, origins: expect.objectContaining({ maxIterations: 'flag' }) as never },
    ],
    [
      "max_iterations: the task's wins over the config",
      {},
      { max_iterations: 7 },
      config,
      { maxIterations: 7, origins: expect.objectContaining({ maxIterations: 'task' }) as never },
    ],
    [
      'max_iterations: the task may raise the bound above the config',
      {},
      { max_iterations: 500 },
      config,
      { maxIterations: 500 },
    ],
    [
      "max_iterations: the persistence_loop block is a run's record, not a setting",
      {},
      { persistence_loop: { status: 'running', iteration: 4, max_iterations: 5 } },
      config,
      { maxIterations: 100, origins: expect.objectContaining({ maxIterations: 'config' }) as never },
    ],
    [
      'max_iterations: the top-level key wins over the block beside it',
      {},
      { max_iterations: 20, persistence_loop: { status: 'running', iteration: 4, max_iterations: 5 } },
      config,
      { maxIterations: 20 },
    ],
    // completion_promise
    [
      'completion_promise: the flag wins over the task and the config',
      { completionPromise: 'SHIPPED' },
      { completion_promise: 'DONE' },
      config,
      { promise: 'SHIPPED', origins: expect.objectContaining({ promise: 'flag' }) as never },
    ],
    [
      "completion_promise: the task's wins over the config",
      {},
      { completion_promise: 'DONE' },
      config,
      { promise: 'DONE', origins: expect.objectContaining({ promise: 'task' }) as never },
    ],
    [
      'completion_promise: an empty flag is taken as given (only an absent flag defers)',
      { completionPromise: '' },
      { completion_promise: 'DONE' },
      config,
      { promise: '', origins: expect.objectContaining({ promise: 'flag' }) as never },
    ],
    // fail_fast: no task key
    [
      'fail_fast: --fail-fast turns it on over the config',
      { failFast: true },
      {},
      config,
      { failFast: true, origins: expect.objectContaining({ failFast: 'flag' }) as never },
    ],
    [
      "fail_fast: a recorded false (ralph) turns off the config's true",
      { failFast: false },
      {},
      { ...config, loop: { ...config.loop, failFast: true } },
      { failFast: false, origins: expect.objectContaining({ failFast: 'flag' }) as never },
    ],
    [
      'fail_fast: absent → the config',
      {},
      {},
      { ...config, loop: { ...config.loop, failFast: true } },
      { failFast: true, origins: expect.objectContaining({ failFast: 'config' }) as never },
    ],
    // budgets: no flags
    [
      'budgets: each task key replaces its own budget only',
      {},
      { max_tokens: 1000, max_duration: 60_000 },
      config,
      {
        budget: { maxTokens: 1000, maxCostUsd: 5, maxDurationMs: 60_000 },
        origins: expect.objectContaining({ maxTokens: 'task', maxCostUsd: 'config', maxDurationMs: 'task' }) as never,
      },
    ],
    [
      'budgets: a task may set one the config leaves unlimited',
      {},
      { max_cost_usd: 0.25 },
      { ...config, loop: { ...config.loop, budget: { maxTokens: 0, maxCostUsd: 0, maxDurationMs: 0 } } },
      { budget: { maxTokens: 0, maxCostUsd: 0.25, maxDurationMs: 0 } },
    ],
    // verify, workdir, branch: the task's only
    ['verify: a check the config defines', {}, { verify: 'tests' }, config, { verify: 'tests' }],
    [
      'workdir and branch: as the task wrote them',
      {},
      { workdir: '~/code/app', branch: 'ralph/dark-mode' },
      config,
      { workdir: '~/code/app', branch: 'ralph/dark-mode' },
    ],
  ];

  test.each(cases)('%s', (_name, flags, frontmatter, given, expected) => {
    const result = taskSettings(flags, frontmatter, given);
    if (result.kind !== 'settings') throw new Error(`expected settings, got ${JSON.stringify(result.problem)}`);
    expect(shown(result.settings)).toMatchObject(expected);
  });

  test("the config's other loop settings (timeouts, retry, waits) pass through unchanged", () => {
    const result = taskSettings({ failFast: true }, { max_tokens: 1 }, config);
    if (result.kind !== 'settings') throw new Error('expected settings');
    const { failFast: _failFast, budget: _budget, ...rest } = result.settings.loop;
    const { failFast: _f, budget: _b, ...configured } = config.loop;
    expect(rest).toEqual(configured);
    expect(rest.perIterationTimeoutMs).toBe(shipped.loop.perIterationTimeoutMs);
  });
});

describe('taskSettings: problems, with where the value came from', () => {
  const known = Object.keys(config.harnesses);
  const cases: [string, RunOverrides, Frontmatter, WiggumConfig, SettingProblem][] = [
    ['no flag, no task harness, no default → no harness', {}, {}, noDefault, { kind: 'no-harness' }],
    ['an empty --harness names none either', { harness: '' }, {}, noDefault, { kind: 'no-harness' }],
    [
      "an unknown task harness → named, from the task's harness:",
      {},
      { harness: 'skynet' },
      config,
      { kind: 'unknown-harness', name: 'skynet', from: 'task', known },
    ],
    [
      'an unknown --harness → from the flag',
      { harness: 'skynet' },
      { harness: 'claude' },
      config,
      { kind: 'unknown-harness', name: 'skynet', from: 'flag', known },
    ],
    [
      'an unknown harness.default → from the config',
      {},
      {},
      { ...config, harness: { ...config.harness, defaultName: 'skynet' } },
      { kind: 'unknown-harness', name: 'skynet', from: 'config', known },
    ],
    [
      'a known --harness hides an unknown task harness',
      { harness: 'claude' },
      { harness: 'skynet', verify: 'lint' },
      config,
      { kind: 'unknown-check', name: 'lint', from: 'task' },
    ],
    ['an unknown verify check', {}, { verify: 'lint' }, config, { kind: 'unknown-check', name: 'lint', from: 'task' }],
    [
      'the harness is reported before the check',
      {},
      { harness: 'skynet', verify: 'lint' },
      config,
      { kind: 'unknown-harness', name: 'skynet', from: 'task', known },
    ],
  ];

  test.each(cases)('%s', (_name, flags, frontmatter, given, problem) => {
    expect(taskSettings(flags, frontmatter, given)).toEqual({ kind: 'problem', problem });
  });
});

describe("baseOf: the task's base:, else git.base, else the current branch", () => {
  test.each([
    ['the task names one', 'release', 'main', { ref: 'release', from: 'task' }],
    ['only the config names one', undefined, 'main', { ref: 'main', from: 'config' }],
    ['neither: the current branch', undefined, null, null],
    ['the task alone', 'release', null, { ref: 'release', from: 'task' }],
  ] as const)('%s', (_name, task, configured, expected) => {
    expect(baseOf(task, configured)).toEqual(expected);
  });

  test('taskSettings carries it', () => {
    const withBase: WiggumConfig = { ...config, git: { ...config.git, base: 'main' } };
    const result = taskSettings({}, { base: 'develop' }, withBase);
    expect(result.kind === 'settings' && result.settings.base).toEqual({ ref: 'develop', from: 'task' });
  });
});

describe('settingError', () => {
  test.each([
    [{ kind: 'no-harness' }, 'E_NO_HARNESS', 'fix-login.md names no harness', {}],
    [
      { kind: 'unknown-harness', name: 'skynet', from: 'task', known: ['demo', 'claude'] },
      'E_HARNESS_UNKNOWN',
      `unknown harness "skynet" (the task's harness:): the configured harnesses are demo, claude`,
      { key: 'harness', value: 'skynet', from: 'task' },
    ],
    [
      { kind: 'unknown-harness', name: 'skynet', from: 'flag', known: ['demo'] },
      'E_HARNESS_UNKNOWN',
      'unknown harness "skynet" (--harness)',
      { from: 'flag' },
    ],
    [
      { kind: 'unknown-harness', name: 'skynet', from: 'config', known: ['demo'] },
      'E_HARNESS_UNKNOWN',
      'unknown harness "skynet" (harness.default in the config)',
      { from: 'config' },
    ],
    [
      { kind: 'unknown-check', name: 'lint', from: 'task' },
      'E_TASK_SCHEMA',
      `unknown verify check "lint" (the task's verify:): add it under checks: in the config`,
      { key: 'verify', value: 'lint', from: 'task' },
    ],
  ] as const)('%j → %s', (problem, code, message, details) => {
    const error = settingError(problem, 'fix-login.md');
    expect(isWiggumError(error) && error.code).toBe(code);
    expect(error.message).toContain(message);
    expect(error.details ?? {}).toMatchObject(details);
  });
});
