import { z } from 'zod';
import { LAND_MODES } from '../config/schema.js';
import type { TaskSettings } from '../loop/task-settings.js';

/**
 * A task's resolved settings (what `taskSettings` yields on the vault host) as JSON can carry them.
 * The host resolves them once, from the task and its own config, so that every worker runs the task
 * with the same limits and budgets whatever its own config says. The harness and the verify check
 * travel by name only: a job never carries a command line, so whoever can write to the queue's
 * Redis cannot make a worker run a program; the worker runs the harness of that name in its own
 * config (own-harness.ts). The retriable patterns (RegExp) travel as source and flags and are
 * compiled again when parsed.
 */
export type JobSettings = Omit<TaskSettings, 'harness' | 'verify'> & {
  harness: { name: string };
  verify: { name: string } | null;
};

export type SettingsData = Omit<JobSettings, 'loop'> & {
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
    harness: { name: settings.harness.name },
    verify: settings.verify === null ? null : { name: settings.verify.name },
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
  // By name only: a harness or check with a command (an older host's job, or one forged) is refused.
  harness: z.strictObject({ name: z.string().min(1) }),
  verify: z.strictObject({ name: z.string().min(1) }).nullable(),
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

// Keeps the schema and JobSettings in step: a field added to one and not the other fails to compile.
const _schemaMatches: (parsed: z.output<typeof settingsDataSchema>) => JobSettings = (parsed) => parsed;
void _schemaMatches;
