import { z } from 'zod';
import { WiggumError } from '../errors.js';
import { describeIssues } from '../memory/json-text.js';
import type { Endings } from '../loop/endings.js';
import { LOCAL_ENDINGS } from '../loop/endings.js';
import type { StopReason } from '../loop/outcome.js';
import type { FailureFacts, LoopFacts } from '../loop/reports.js';
import type { QuestionFacts } from '../task/question-section.js';
import type { PersistenceLoopData } from '../task/render.js';
import { persistenceLoopSchema } from '../task/schema.js';
import { TASK_ID_PATTERN } from '../task/vocabulary.js';
import { PROTOCOL_VERSION, checkVersion } from './job-data.js';

/**
 * How a worker's loop ended a task, with everything the ending was told: the vault host ends the
 * real file with the same ending (ending.ts), its own history and session folder in place of the
 * worker's private copy.
 */
export type WorkerEnding =
  | { kind: 'done'; loop: PersistenceLoopData; facts: LoopFacts; tickChecklist: boolean; review: boolean }
  | { kind: 'rejected'; loop: PersistenceLoopData; facts: FailureFacts }
  | { kind: 'stopped'; loop: PersistenceLoopData | null; reason: StopReason; iterations: number }
  | { kind: 'blocked'; loop: PersistenceLoopData; question: QuestionFacts };

/** A worker's job return value. `ending` null: the run did not end the task (handed back, fenced). */
export interface RunReturn {
  version: typeof PROTOCOL_VERSION;
  taskId: string;
  generation: number;
  ending: WorkerEnding | null;
}

/**
 * The local endings, each also recorded: the worker's private copy of the task ends as it would on
 * one machine, and what it was told goes back to the host in the job's return value.
 */
export function recordingEndings(record: (ending: WorkerEnding) => void): Endings {
  return {
    done: (target, loop, facts, deps, tickChecklist = false, review = false) => {
      record({ kind: 'done', loop, facts, tickChecklist, review });
      return LOCAL_ENDINGS.done(target, loop, facts, deps, tickChecklist, review);
    },
    rejected: (target, loop, facts, deps) => {
      record({ kind: 'rejected', loop, facts });
      return LOCAL_ENDINGS.rejected(target, loop, facts, deps);
    },
    stopped: (target, loop, reason, iterations, deps) => {
      record({ kind: 'stopped', loop, reason, iterations });
      return LOCAL_ENDINGS.stopped(target, loop, reason, iterations, deps);
    },
    blocked: (target, loop, question, deps) => {
      record({ kind: 'blocked', loop, question });
      return LOCAL_ENDINGS.blocked(target, loop, question, deps);
    },
  };
}

// The facts are the loop's own objects, sent whole; their shape is checked where it matters to
// the host (the kind, the checkpoint, the counts), the rest is rendered as the loop built it.
const facts = z.looseObject({
  taskId: z.string(),
  iterations: z.int().min(0),
  history: z.array(z.unknown()),
  stories: z.array(z.unknown()),
});
const endingSchema = z.discriminatedUnion('kind', [
  z.looseObject({
    kind: z.literal('done'),
    loop: persistenceLoopSchema,
    facts,
    tickChecklist: z.boolean(),
    review: z.boolean(),
  }),
  z.looseObject({
    kind: z.literal('rejected'),
    loop: persistenceLoopSchema,
    facts: facts.extend({ code: z.string() }),
  }),
  z.looseObject({
    kind: z.literal('stopped'),
    loop: persistenceLoopSchema.nullable(),
    reason: z.enum(['stop-flag', 'task-gone', 'interrupted']),
    iterations: z.int().min(0),
  }),
  z.looseObject({
    kind: z.literal('blocked'),
    loop: persistenceLoopSchema,
    question: z.looseObject({ iteration: z.int().min(1), text: z.string() }),
  }),
]);
const returnSchema = z.strictObject({
  version: z.literal(PROTOCOL_VERSION),
  taskId: z.string().regex(TASK_ID_PATTERN),
  generation: z.int().min(1),
  ending: endingSchema.nullable(),
});

/** A job's return value as the host reads it; anything else is E_QUEUE_PROTOCOL. */
export function parseRunReturn(value: unknown): RunReturn {
  checkVersion(value, 'job');
  const checked = returnSchema.safeParse(value);
  if (!checked.success)
    throw new WiggumError(
      'E_QUEUE_PROTOCOL',
      `a finished run's return value is not a task run's (${describeIssues(checked.error.issues)}): the worker ` +
        "that sent it runs another wiggum, or a bug: report it with the worker's log",
      { details: { issues: checked.error.issues.length } },
    );
  return checked.data as unknown as RunReturn;
}
