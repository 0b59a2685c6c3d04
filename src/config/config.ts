import type { HarnessKind, LandMode, RawConfig } from './schema.js';
import { compileNotifier } from './notifier.js';
import type { NotifierDefinition } from './notifier.js';
import { compileHttp } from './http-listen.js';
import type { HttpConfig } from './http-listen.js';
import { compileMemory } from './memory-settings.js';
import type { MemorySettings } from './memory-settings.js';
import { compileSandbox, harnessSandbox } from './sandbox-settings.js';
import type { SandboxSettings } from './sandbox-settings.js';

/** A harness from config: the only way a task gets a command run. */
export interface HarnessDefinition {
  name: string;
  kind: HarnessKind;
  command: string;
  args: string[];
  env: Record<string, string>;
  secretEnv?: string[];
  /** The account a usage limit pauses, when the config names one; `accountOf` gives the default. */
  account?: string;
  /** How its runs are confined: the vault's `sandbox:` with the harness's own over it. */
  sandbox: SandboxSettings;
}

/** The account a harness's usage limit pauses: its `account:`, else the harness's own name. */
export function accountOf(harness: Pick<HarnessDefinition, 'name' | 'account'>): string {
  return harness.account ?? harness.name;
}

/**
 * `queue:`: where task runs are queued. `url` null: the in-process queue (nothing leaves this
 * process); a Redis URL: runs go through BullMQ to `wiggum worker` processes (docs/scale-out.md).
 */
export interface QueueConfig {
  url: string | null;
  /** How long a worker's lock on a run lasts without renewal; a run whose lock lapses is stalled. */
  lockDurationMs: number;
  /** How often workers look for stalled runs. */
  stalledIntervalMs: number;
  /** Stalls a run may have and still resume; one more sends the task to Rejected/ with a report. */
  maxStalled: number;
}

/** A named check a task can require with `verify:`. */
export interface CheckDefinition {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  timeoutMs: number;
}

export interface RetryPolicyConfig {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  jitter: number;
  /** What a user declares transient besides what the drivers recognise (persistence_loop.retry.retriable_errors). */
  retriable: RetriableErrors;
}

/** Exit codes and output patterns of a failed run that are retried like a network error. */
export interface RetriableErrors {
  exitCodes: readonly number[];
  patterns: readonly RegExp[];
}

export interface LoopConfig {
  maxIterations: number;
  warnThreshold: number;
  checkpointInterval: number;
  completionPromise: string;
  noProgressLimit: number;
  failFast: boolean;
  /** Tick a Done task's checklist for the stories that pass (off: no user byte changes). */
  tickChecklist: boolean;
  retry: RetryPolicyConfig;
  perIterationTimeoutMs: number;
  totalTimeoutMs: number;
  idleTimeoutMs: number;
  usageLimitMaxWaitMs: number;
  /** How long a harness that keeps failing with network or overload errors is waited for before its tasks are rejected. */
  outageMaxWaitMs: number;
  budget: Budget;
}

/**
 * What one task may use over all its runs, across restarts; 0 = no limit. Crossing one rejects the
 * task with E_BUDGET. A task's `max_tokens`, `max_cost_usd` and `max_duration` override these.
 */
export interface Budget {
  /** Input plus output tokens, as the agent CLIs report them. */
  maxTokens: number;
  /** USD, as the agent CLIs report it (Claude Code, OpenCode, Amp; never estimated). */
  maxCostUsd: number;
  /** The agent's own run time, summed; waits and backoff are not counted. */
  maxDurationMs: number;
}

/**
 * The checked configuration every component reads: camelCase, durations in milliseconds, sizes in
 * bytes, paths absolute. Built once from the YAML layers; never mutated.
 */
export interface WiggumConfig {
  /** The files merged, lowest precedence first. */
  sources: string[];
  folders: { approved: string; done: string; rejected: string; review: string; blocked?: string };
  dashboard: string | null;
  allowedWorkdirs: string[];
  loop: LoopConfig;
  harness: {
    /** The harness of a task that names none; null: such a task waits until it names one. */
    defaultName: string | null;
    stopGraceMs: number;
    logMaxBytes: number;
    tailBytes: number;
    envAllowlist: string[];
    secretEnv: string[];
  };
  harnesses: Record<string, HarnessDefinition>;
  checks: Record<string, CheckDefinition>;
  memory: MemorySettings;
  git: {
    enabled: boolean;
    autoCommit: boolean;
    /** The branch a task's new branch starts from when the task names no `base:`; null: the current one. */
    base: string | null;
    /** Keep a task's worktree when it ends (its branch is always kept). */
    keepWorktree: boolean;
    /** At most this many tasks at once on one repository; null: only daemon.concurrency bounds them. */
    maxParallelPerRepo: number | null;
    /** How a complete task's branch lands when the task names no `land:`. */
    land: LandMode;
    /** Landings of one task that may end in a conflict or a failed check before it is rejected. */
    landAttempts: number;
    /** Where `land: pr` pushes the branch. */
    remote: string;
    /** The command that opens a pull request (`{branch}`, `{base}`, `{title}`, `{remote}` in its args). */
    pr: { command: string; args: string[]; env: Record<string, string>; timeoutMs: number };
  };
  daemon: {
    concurrency: number;
    rescanIntervalMs: number;
    settleMs: number;
    /** A file seen changing in Approved/ (a note being written in place) runs once unchanged this long. */
    composeQuietMs: number;
    drainGraceMs: number;
    dashboardDebounceMs: number;
    /** A task whose loop failed outside its own handling (a disk full, …) is offered again after this. */
    failedRetryMs: number;
    /** The priority of a task that names none (lower runs first). */
    defaultPriority: number;
    /** `daemon.http`: the HTTP API, metrics and web page; listen null: off. */
    http: HttpConfig;
  };
  /** Review before Done: whether a complete task waits in Review/ for a person, and how many may wait. */
  review: {
    /** A task without its own `review:` key goes to Review/ when complete. */
    required: boolean;
    /** While this many tasks wait in Review/ no new task starts; null: no limit. */
    maxPending: number | null;
  };
  log: { level: RawConfig['log']['level'] };
  /** `notify:`: where events go (empty: nowhere). */
  notify: NotifierDefinition[];
  queue: QueueConfig;
  /** The vault-wide `sandbox:` (each harness has its own resolved copy; verify checks use this one). */
  sandbox: SandboxSettings;
}

function compileHarness(name: string, h: RawConfig['harnesses'][string], sandbox: SandboxSettings): HarnessDefinition {
  const { kind, command, env, account } = h;
  const args = [...h.args, ...h.extra_args];
  return {
    name,
    kind,
    command,
    args,
    env,
    ...(h.secret_env.length === 0 ? {} : { secretEnv: h.secret_env }),
    ...(account === undefined ? {} : { account }),
    sandbox: harnessSandbox(sandbox, h.sandbox),
  };
}

function compileHarnessSettings(harness: RawConfig['harness']): WiggumConfig['harness'] {
  return {
    defaultName: harness.default === '' ? null : harness.default,
    stopGraceMs: harness.stop_grace,
    logMaxBytes: harness.log_max_bytes,
    tailBytes: harness.tail_bytes,
    envAllowlist: harness.env_allowlist,
    secretEnv: harness.secret_env,
  };
}

export function compileConfig(raw: RawConfig, sources: string[]): WiggumConfig {
  const loop = raw.persistence_loop;
  const sandbox = compileSandbox(raw.sandbox);
  return {
    sources,
    folders: {
      approved: raw.vault.approved,
      done: raw.vault.done,
      rejected: raw.vault.rejected,
      review: raw.vault.review,
      blocked: raw.vault.blocked,
    },
    dashboard: raw.vault.dashboard === '' ? null : raw.vault.dashboard,
    allowedWorkdirs: raw.vault.allowed_workdirs,
    loop: {
      maxIterations: loop.max_iterations,
      warnThreshold: loop.warn_threshold,
      checkpointInterval: loop.checkpoint_interval,
      completionPromise: loop.completion_promise,
      noProgressLimit: loop.no_progress_limit,
      failFast: loop.fail_fast,
      tickChecklist: loop.tick_checklist,
      retry: {
        maxAttempts: loop.retry.max_attempts,
        baseDelayMs: loop.retry.base_delay,
        maxDelayMs: loop.retry.max_delay,
        jitter: loop.retry.jitter,
        retriable: {
          exitCodes: loop.retry.retriable_errors.exit_codes,
          patterns: loop.retry.retriable_errors.patterns,
        },
      },
      perIterationTimeoutMs: loop.timeout.per_step,
      totalTimeoutMs: loop.timeout.total,
      idleTimeoutMs: loop.timeout.idle,
      usageLimitMaxWaitMs: loop.usage_limit_max_wait,
      outageMaxWaitMs: loop.outage_max_wait,
      budget: {
        maxTokens: loop.budget.max_tokens,
        maxCostUsd: loop.budget.max_cost_usd,
        maxDurationMs: loop.budget.max_duration,
      },
    },
    harness: compileHarnessSettings(raw.harness),
    harnesses: Object.fromEntries(
      Object.entries(raw.harnesses).map(([name, h]) => [name, compileHarness(name, h, sandbox)]),
    ),
    checks: Object.fromEntries(
      Object.entries(raw.checks).map(([name, c]) => [
        name,
        { name, command: c.command, args: c.args, env: c.env, timeoutMs: c.timeout },
      ]),
    ),
    memory: compileMemory(raw.memory),
    git: {
      enabled: raw.git.enabled,
      autoCommit: raw.git.auto_commit,
      base: raw.git.base === '' ? null : raw.git.base,
      keepWorktree: raw.git.keep_worktree,
      maxParallelPerRepo: raw.git.max_parallel_per_repo === 0 ? null : raw.git.max_parallel_per_repo,
      land: raw.git.land,
      landAttempts: raw.git.land_attempts,
      remote: raw.git.remote,
      pr: { command: raw.git.pr.command, args: raw.git.pr.args, env: raw.git.pr.env, timeoutMs: raw.git.pr.timeout },
    },
    daemon: {
      concurrency: raw.daemon.concurrency,
      rescanIntervalMs: raw.daemon.rescan_interval,
      settleMs: raw.daemon.settle,
      composeQuietMs: raw.daemon.compose_quiet,
      drainGraceMs: raw.daemon.drain_grace,
      dashboardDebounceMs: raw.daemon.dashboard_debounce,
      failedRetryMs: raw.daemon.failed_retry,
      defaultPriority: raw.daemon.default_priority,
      http: compileHttp(raw.daemon.http),
    },
    review: {
      required: raw.review.required,
      maxPending: raw.review.max_pending === 0 ? null : raw.review.max_pending,
    },
    log: { level: raw.log.level },
    notify: raw.notify.map(compileNotifier),
    queue: {
      url: raw.queue.url === '' ? null : raw.queue.url,
      lockDurationMs: raw.queue.lock_duration,
      stalledIntervalMs: raw.queue.stalled_interval,
      maxStalled: raw.queue.max_stalled,
    },
    sandbox,
  };
}
