import { z } from 'zod';
import { HARNESS_KINDS, LAND_MODES } from '../config/schema.js';
import { NETWORK_MODES, SANDBOX_MODES } from '../config/sandbox-schema.js';
import type { TaskSettings } from '../loop/task-settings.js';

/**
 * A task's resolved settings (what `taskSettings` yields on the vault host) as JSON can carry them.
 * The host resolves them once, from the task and its own config, so that every worker runs the task
 * with the same harness, limits and budgets whatever its own config says. The only part of
 * TaskSettings that is not plain data is the retriable patterns (RegExp): they travel as source and
 * flags and are compiled again when parsed.
 */
export type SettingsData = Omit<TaskSettings, 'loop'> & {
  loop: Omit<TaskSettings['loop'], 'retry'> & {
    retry: Omit<TaskSettings['loop']['retry'], 'retriable'> & {
      retriable: { exitCodes: number[]; patterns: { source: string; flags: string }[] };
    };
  };
};

export function settingsToData(settings: TaskSettings): SettingsData {
  const { retriable } = settings.loop.retry;
  return {
    ...settings,
    loop: {
      ...settings.loop,
      retry: {
        ...settings.loop.retry,
        retriable: {
          exitCodes: [...retriable.exitCodes],
          patterns: retriable.patterns.map((pattern) => ({ source: pattern.source, flags: pattern.flags })),
        },
      },
    },
  };
}

const count = z.int().min(0);
const ms = z.number().min(0);
const env = z.record(z.string(), z.string());
const origin = z.enum(['flag', 'task', 'config']);
const taskOrConfig = z.enum(['task', 'config']);

/** A pattern compiled again; one that no longer compiles is a protocol error, never silently dropped. */
const pattern = z
  .strictObject({ source: z.string().min(1), flags: z.string().regex(/^[dgimsuvy]*$/) })
  .transform((value, ctx) => {
    try {
      return new RegExp(value.source, value.flags);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `not a regular expression: ${(error as Error).message}` });
      return z.NEVER;
    }
  });

export const settingsDataSchema = z.strictObject({
  harness: z.strictObject({
    name: z.string().min(1),
    kind: z.enum(HARNESS_KINDS),
    command: z.string().min(1),
    args: z.array(z.string()),
    env,
    account: z.string().min(1).exactOptional(),
    // The host's sandbox travels with the harness: a worker's own config cannot loosen it.
    sandbox: z.strictObject({
      mode: z.enum(SANDBOX_MODES),
      required: z.boolean(),
      network: z.enum(NETWORK_MODES),
      allow: z.array(z.string()),
      readOnly: z.array(z.string()),
      writable: z.array(z.string()),
      hidden: z.array(z.string()),
      homeFiles: z.array(z.strictObject({ path: z.string().min(1), mode: z.enum(['copy', 'ro']) })),
      limits: z.strictObject({ processes: count, openFiles: count, fileSizeBytes: count }),
    }),
  }),
  verify: z
    .strictObject({
      name: z.string().min(1),
      command: z.string().min(1),
      args: z.array(z.string()),
      env,
      timeoutMs: ms,
    })
    .nullable(),
  workdir: z.string().nullable(),
  branch: z.string().nullable(),
  base: z.strictObject({ ref: z.string().min(1), from: taskOrConfig }).nullable(),
  land: z.enum(LAND_MODES),
  maxIterations: z.int().min(1),
  promise: z.string().min(1),
  loop: z.strictObject({
    maxIterations: z.int().min(1),
    warnThreshold: z.number(),
    checkpointInterval: z.int().min(1),
    completionPromise: z.string().min(1),
    noProgressLimit: count,
    failFast: z.boolean(),
    tickChecklist: z.boolean(),
    retry: z.strictObject({
      maxAttempts: count,
      baseDelayMs: ms,
      maxDelayMs: ms,
      jitter: z.number().min(0).lt(1),
      retriable: z.strictObject({ exitCodes: z.array(z.int()), patterns: z.array(pattern) }),
    }),
    perIterationTimeoutMs: ms,
    totalTimeoutMs: ms,
    idleTimeoutMs: ms,
    usageLimitMaxWaitMs: ms,
    outageMaxWaitMs: ms,
    budget: z.strictObject({ maxTokens: z.number().min(0), maxCostUsd: z.number().min(0), maxDurationMs: ms }),
  }),
  origins: z.strictObject({
    harness: origin,
    maxIterations: origin,
    promise: origin,
    failFast: z.enum(['flag', 'config']),
    maxTokens: taskOrConfig,
    maxCostUsd: taskOrConfig,
    maxDurationMs: taskOrConfig,
  }),
});

// Keeps the schema and TaskSettings in step: a field added to one and not the other fails to compile.
const _schemaMatches: (parsed: z.output<typeof settingsDataSchema>) => TaskSettings = (parsed) => parsed;
void _schemaMatches;
