import { z } from 'zod';
import { duration } from './duration.js';
import { sizeBytes } from './units.js';
import { notifyListSchema } from './notify-schema.js';
import { exposureProblem, hostEntryProblem, listenProblem } from './http-listen.js';
import { harnessSandboxSchema, sandboxSchema } from './sandbox-schema.js';
import { compileSandbox, harnessSandbox, sandboxProblem } from './sandbox-settings.js';

/** How a finished task's branch lands (`land:` in a task, `git.land` in the config). */
export const LAND_MODES = ['branch', 'merge', 'pr'] as const;
export type LandMode = (typeof LAND_MODES)[number];

export const HARNESS_KINDS = ['command', 'claude', 'codex', 'opencode', 'amp', 'gemini'] as const;
export type HarnessKind = (typeof HARNESS_KINDS)[number];

export { duration };

const size = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const bytes = sizeBytes(value);
  if (bytes === undefined) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a size: use bytes (1048576) or a unit (64KiB, 50MB)` });
    return z.NEVER;
  }
  return bytes;
});

/** A pattern of `retriable_errors`, compiled once here so that a bad one is a config error naming its key. */
const pattern = z
  .string()
  .min(1)
  .transform((source, ctx) => {
    try {
      return new RegExp(source, 'i');
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `"${source}" is not a valid regular expression (${error instanceof Error ? error.message : String(error)}): escape special characters such as ( [ + * ? with a backslash`,
      });
      return z.NEVER;
    }
  });

const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, { message: 'names use letters, digits, "_" and "-"' });
const folder = z.string().regex(/^[^/\\.][^/\\]*$/, { message: 'a folder name inside the vault, without slashes' });
const variableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'not a valid variable name' });
const envMap = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'not a valid variable name' }), z.string())
  .default({});

const harness = z.strictObject({
  kind: z.enum(HARNESS_KINDS),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  // Appended to `args`: a layer adds flags (a --model) to a built-in harness without restating its args.
  extra_args: z.array(z.string()).default([]),
  env: envMap,
  // More variables whose values are masked in what wiggum writes (over harness.secret_env).
  secret_env: z.array(variableName).default([]),
  // The account a usage limit pauses (on every worker); absent: the harness's own name.
  account: name.optional(),
  // Over the vault-wide `sandbox:` (sandbox-settings.ts harnessSandbox).
  sandbox: harnessSandboxSchema.optional(),
});

/**
 * `queue.url`: empty (the in-process queue) or a Redis URL. Only the scheme is checked here; the
 * host, port and database are checked where a connection is opened (src/queue/).
 */
const queueUrl = z.string().regex(/^((redis|rediss):\/\/\S+)?$/, {
  message: 'queue.url must be empty (the in-process queue) or a Redis URL such as redis://HOST:6379',
});

const check = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: envMap,
  // prefault, not default: zod 4 hands a `default` value back unparsed (600 would be 600 ms); a
  // prefault goes through `duration` as if written, so an unset timeout is 600 s.
  timeout: duration.prefault(600),
});

/** The configuration as written in YAML (snake_case), with units already compiled. */
export const rawConfigSchema = z
  .strictObject({
    vault: z.strictObject({
      approved: folder,
      done: folder,
      rejected: folder,
      review: folder,
      blocked: folder,
      dashboard: z.string().regex(/^([^/\\]+\.md)?$/, { message: 'a Markdown file name at the vault root, or empty' }),
      allowed_workdirs: z.array(z.string().min(1)),
    }),
    persistence_loop: z.strictObject({
      max_iterations: z.int().min(1).max(100_000),
      warn_threshold: z.number().gt(0).lte(1),
      checkpoint_interval: z.int().min(1),
      completion_promise: z
        .string()
        .min(1)
        .max(200)
        .regex(/^[^<>]+$/, { message: 'the TEXT inside <promise>…</promise>, without angle brackets' }),
      no_progress_limit: z.int().min(0),
      fail_fast: z.boolean(),
      tick_checklist: z.boolean(),
      retry: z.strictObject({
        max_attempts: z.int().min(0).max(100),
        backoff_strategy: z.literal('exponential'),
        base_delay: duration,
        max_delay: duration,
        jitter: z.number().min(0).lt(1),
        retriable_errors: z
          .strictObject({
            exit_codes: z.array(z.int().min(1).max(255)).default([]),
            patterns: z.array(pattern).default([]),
          })
          .default({ exit_codes: [], patterns: [] }),
      }),
      timeout: z.strictObject({
        per_step: duration,
        total: duration,
        idle: duration,
      }),
      usage_limit_max_wait: duration,
      outage_max_wait: duration,
      budget: z.strictObject({
        max_tokens: z.int().min(0),
        max_cost_usd: z.number().min(0),
        max_duration: duration,
      }),
    }),
    harness: z.strictObject({
      // Empty (or absent) by default: no task runs without a harness it or the vault config names.
      default: z.preprocess(
        (value) => (value === null || (typeof value === 'string' && value.trim() === '') ? '' : value),
        z.union([z.literal(''), name]),
      ),
      stop_grace: duration,
      log_max_bytes: size,
      tail_bytes: size,
      env_allowlist: z.array(variableName),
      // Variables whose values are masked as `[redacted]` in everything wiggum writes, beside the
      // credential-like names it finds itself (src/config/secret-values.ts).
      secret_env: z.array(variableName).default([]),
    }),
    harnesses: z.record(name, harness),
    checks: z
      .record(name, check)
      .nullable()
      .transform((value) => value ?? {}),
    memory: z.strictObject({
      backend: z.enum(['disk', 'memory']),
      in_workdir: z.boolean(),
      limits: z.strictObject({ prd: size, progress: size, context: size }),
    }),
    git: z.strictObject({
      enabled: z.boolean(),
      auto_commit: z.boolean(),
      // Empty: the repository's current branch. A task's `base:` wins over it.
      base: z.string().regex(/^((?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]{1,200}(?<![./]))?$/, {
        message: 'base must be a branch name such as main, or empty for the current branch',
      }),
      keep_worktree: z.boolean(),
      // 0: no cap beyond daemon.concurrency.
      max_parallel_per_repo: z.int().min(0).max(256),
      land: z.enum(LAND_MODES, { message: `land must be one of ${LAND_MODES.join(', ')}` }),
      land_attempts: z.int().min(1).max(100),
      remote: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, {
        message: 'remote must be the name of a git remote such as origin',
      }),
      pr: z.strictObject({
        command: z.string().min(1),
        args: z.array(z.string()),
        env: envMap,
        timeout: duration,
      }),
    }),
    daemon: z.strictObject({
      concurrency: z.int().min(1).max(256),
      rescan_interval: duration.refine((ms) => ms >= 100, { message: 'the rescan interval must be at least 100ms' }),
      settle: duration,
      compose_quiet: duration,
      drain_grace: duration,
      dashboard_debounce: duration,
      failed_retry: duration.refine((ms) => ms >= 100, { message: 'failed_retry must be at least 100ms' }),
      default_priority: z.int().min(-1_000_000).max(1_000_000),
      http: z
        .strictObject({
          listen: z.string().refine((text) => text === '' || listenProblem(text) === null, {
            error: (issue) => listenProblem(String(issue.input)) ?? 'listen is not an address',
          }),
          insecure: z.boolean(),
          tls: z.strictObject({ cert: z.string(), key: z.string() }),
          hosts: z.array(
            z.string().refine((text) => hostEntryProblem(text) === null, {
              error: (issue) => hostEntryProblem(String(issue.input)) ?? 'not a host name',
            }),
          ),
          max_connections: z.int().min(1).max(100_000),
          header_timeout: duration.refine((ms) => ms >= 100 && ms <= 600_000, {
            message: 'header_timeout must be between 100ms and 10m',
          }),
        })
        .superRefine((http, context) => {
          const problem = exposureProblem(http.listen, {
            tls: http.tls.cert !== '' || http.tls.key !== '',
            insecure: http.insecure,
          });
          if (problem !== null) context.addIssue({ code: 'custom', message: problem, path: ['listen'] });
          if ((http.tls.cert === '') !== (http.tls.key === ''))
            context.addIssue({
              code: 'custom',
              message: 'tls needs both cert and key (PEM files), or neither',
              path: ['tls'],
            });
        }),
    }),
    review: z.strictObject({ required: z.boolean(), max_pending: z.int().min(0).max(100_000) }),
    queue: z.strictObject({
      url: queueUrl,
      // A lock shorter than a second is lost to any pause of the event loop: every run would stall.
      lock_duration: duration.refine((ms) => ms >= 1000, { message: 'queue.lock_duration must be at least 1s' }),
      stalled_interval: duration.refine((ms) => ms >= 100, {
        message: 'queue.stalled_interval must be at least 100ms',
      }),
      max_stalled: z.int().min(0).max(1000),
    }),
    log: z.strictObject({ level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']) }),
    notify: notifyListSchema.prefault([]),
    sandbox: sandboxSchema,
  })
  .superRefine((config, context) => {
    // Checked per harness too: a harness may set `required` over a vault-wide `mode: off`.
    const vault = compileSandbox(config.sandbox);
    const vaultProblem = sandboxProblem(vault);
    if (vaultProblem !== null)
      context.addIssue({ code: 'custom', message: vaultProblem.message, path: ['sandbox', vaultProblem.key] });
    for (const [harnessName, harness] of Object.entries(config.harnesses)) {
      if (harness.sandbox === undefined) continue;
      const problem = sandboxProblem(harnessSandbox(vault, harness.sandbox));
      if (problem !== null && (vaultProblem === null || problem.key !== vaultProblem.key))
        context.addIssue({
          code: 'custom',
          message: problem.message,
          path: ['harnesses', harnessName, 'sandbox', problem.key],
        });
    }
  });

export type RawConfig = z.output<typeof rawConfigSchema>;
