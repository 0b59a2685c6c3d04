import { z } from 'zod';
import { LAND_MODES, duration } from '../config/schema.js';
import { LOOP_STATUSES, TASK_ID_PATTERN, TASK_STATES } from './vocabulary.js';
import { dependencyIds, parseNotBefore } from './order.js';

/**
 * Dates are kept as the strings the user or wiggum wrote; they are only checked for shape. wiggum
 * writes ISO-8601 with a zone; the other shapes are what other programs write back when they rewrite
 * the frontmatter: YAML 1.1 libraries (PyYAML: `2026-01-27 10:05:00.123000+00:00`) and Obsidian's
 * date-time property (`2026-01-27T10:05`, no seconds, no zone).
 */
const isoTimestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(?:[Tt]|[ \t]+)\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[ \t]*(?:Z|z|[+-]\d{2}(?::?\d{2})?))?$/, {
    message: 'expected an ISO-8601 timestamp such as 2026-01-27T10:05:00Z',
  });

/** A count another program may have written back quoted (`"2"`): read as the number it is. */
const count = z.preprocess(
  (value) => (typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : value),
  z.int().min(0),
);

/** A key another program wrote back with an empty value (`completed_steps:`, `ended:`): read as absent. */
const orEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === null ? undefined : value), schema);

/** Other tools write completed steps as `- step_1: read_input`; wiggum writes plain ids. Both are read. */
const completedStep = z.union([
  z.string(),
  z.record(z.string(), z.union([z.string(), z.number()])).transform((entry) =>
    Object.entries(entry)
      .map(([key, value]) => `${key}: ${String(value)}`)
      .join(', '),
  ),
]);

export const checkpointSchema = z.object({
  completed_steps: orEmpty(z.array(completedStep).default([])),
  current_step: z.string().nullable().optional(),
  state_data: orEmpty(z.record(z.string(), z.unknown()).optional()),
  timestamp: orEmpty(isoTimestamp.optional()),
});

export const persistenceLoopSchema = z
  .object({
    status: z.enum(LOOP_STATUSES),
    session: z.string().min(1).max(200).optional(),
    started: orEmpty(isoTimestamp.optional()),
    updated: orEmpty(isoTimestamp.optional()),
    ended: orEmpty(isoTimestamp.optional()),
    iteration: count,
    max_iterations: count.pipe(z.int().min(1)),
    checkpoint: orEmpty(checkpointSchema.optional()),
    exit_reason: orEmpty(z.string().optional()),
    // Older checkpoints have no `memory:`: their memory is in the session folder.
    memory: orEmpty(z.string().max(300).optional()),
  })
  .loose();

export type PersistenceLoop = z.infer<typeof persistenceLoopSchema>;
export type Checkpoint = z.infer<typeof checkpointSchema>;

// Lower runs first (docs/decisions.md): `high` is a smaller number than `normal`, so it runs before it.
const PRIORITY_WORDS = { highest: -20, high: -10, normal: 0, medium: 0, low: 10, lowest: 20 } as const;

/** A task id in `depends_on:`; an Obsidian link to the task (`"[[chain-a]]"`) names it too. */
const dependencyId = z
  .string()
  .transform((value) => dependencyIds([value])[0] ?? '')
  .pipe(
    z.string().regex(TASK_ID_PATTERN, {
      message: 'each entry of depends_on is the id of another task (its file name without .md, or its id: key)',
    }),
  );

/**
 * The keys wiggum reads from a task's frontmatter. Every other key is the user's and is kept
 * untouched; these are checked so that a mistake is reported before anything runs.
 */
export const taskFrontmatterSchema = z
  .object({
    id: z
      .string()
      .regex(TASK_ID_PATTERN, {
        message: 'an id must start with a letter or digit and use only letters, digits, ".", "_" and "-" (at most 128)',
      })
      .optional(),
    title: z.string().optional(),
    harness: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, {
        message: 'harness must be the NAME of a harness from the config, not a command line',
      })
      .optional(),
    workdir: z.string().min(1).optional(),
    max_iterations: z.int().min(1).max(10_000).optional(),
    max_tokens: z.int().min(1).optional(),
    max_cost_usd: z.number().gt(0).optional(),
    max_duration: duration.refine((ms) => ms > 0, { message: 'max_duration must be above 0' }).optional(),
    completion_promise: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^<>]+$/, {
        message: 'completion_promise is the TEXT inside <promise>…</promise>, without angle brackets',
      })
      .optional(),
    verify: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, { message: 'verify must be the NAME of a check from the config' })
      .optional(),
    branch: z
      .string()
      .regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]{1,200}(?<![./])$/, {
        message: 'branch must be a valid git branch name such as ralph/dark-mode',
      })
      .optional(),
    // The branch a new task branch starts from (an existing branch is reused as it is).
    base: z
      .string()
      .regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]{1,200}(?<![./])$/, {
        message: 'base must be a git branch (or other ref) name such as main',
      })
      .optional(),
    // How the branch lands once the task is complete (git.land when absent).
    land: z.enum(LAND_MODES, { message: `land must be one of ${LAND_MODES.join(', ')}` }).optional(),
    prd: z.string().min(1).optional(),
    // A complete task goes to Review/ for a person to approve (review.required when absent).
    review: z.boolean({ message: 'review must be true or false' }).optional(),
    priority: z
      .union([z.number(), z.enum(Object.keys(PRIORITY_WORDS) as [keyof typeof PRIORITY_WORDS])])
      .transform((value) => (typeof value === 'number' ? value : PRIORITY_WORDS[value]))
      .optional(),
    // The order of work (src/task/order.ts): the tasks to wait for, one id or a list of them.
    depends_on: orEmpty(
      z
        .union([dependencyId.transform((id) => [id]), z.array(dependencyId)], {
          message: 'depends_on is a list of task ids, such as [chain-a, chain-b]',
        })
        .transform((ids) => dependencyIds(ids))
        .optional(),
    ),
    // Kept as written; parseNotBefore reads it when the task is considered.
    not_before: orEmpty(
      z
        .string({ message: 'not_before is a date-time such as 2026-01-27T10:05:00Z' })
        .refine((text) => parseNotBefore(text) !== null, {
          message:
            'not_before is not a date-time wiggum can read: write it as 2026-01-27T10:05:00Z or 2026-01-27T10:05+02:00 (without a zone it is the local time of the machine wiggum runs on)',
        })
        .optional(),
    ),
    // An empty `state:` or `persistence_loop:` means "not written yet".
    state: z
      .enum(TASK_STATES, { message: `state must be one of ${TASK_STATES.join(', ')}` })
      .nullish()
      .transform((value) => value ?? undefined),
    persistence_loop: persistenceLoopSchema.nullish().transform((value) => value ?? undefined),
  })
  .loose();

export type TaskFrontmatter = z.infer<typeof taskFrontmatterSchema>;
