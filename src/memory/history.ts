import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { WiggumError } from '../errors.js';
import { readJsonLines } from '../store/json-lines.js';
import { describeIssues } from './json-text.js';

/** One line of history.jsonl: what one run of the agent did and what the loop decided next. */
export interface IterationRecord {
  iteration: number;
  /** 0 for the first run of an iteration, 1.. for retries. */
  attempt: number;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  harness: string;
  exitCode: number | null;
  signal: string | null;
  /** e.g. 'complete' | 'continue' | 'nonzero-exit' | 'transient' | 'usage-limit' | 'hard' | 'stopped' | 'interrupted' */
  outcome: string;
  completionFound: boolean;
  completionAccepted?: boolean;
  refusal?: string;
  storiesPassing: number;
  storiesTotal: number;
  /**
   * How the agent ran: `bwrap` confined by bubblewrap; `off` unconfined by the settings;
   * `unconfined` because nothing could confine it (mode auto). Absent in lines of older wiggums.
   */
  sandbox?: 'bwrap' | 'off' | 'unconfined';
  git?: {
    headBefore: string | null;
    headAfter: string | null;
    commits: string[];
    filesChanged: number;
    files: string[];
  };
  /** Tokens (input counts cached ones) and cost in USD, as the agent CLI reported them. */
  usage?: {
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    costUsd?: number;
  };
  /** CPU time and peak resident memory of the agent's whole process tree during this run. */
  resources?: { cpuMs: number; peakRssBytes: number };
  agentSessionId?: string;
  error?: { code: string; message: string };
  logFile?: string;
  /** The question the agent asked a person in this run (the task went to Blocked/); `length` before it was cut. */
  question?: { text: string; length: number; source: string };
  /** The question of the last block and the person's answer, which this run's prompt carried. */
  answer?: { question: string; text: string };
  /** The action taken and the state that follows: every iteration's record names both. */
  action: string;
  nextState: string;
}

const count = z.int().min(0);

/** Later versions may add fields, so unknown keys are kept. */
export const iterationRecordSchema = z
  .object({
    iteration: count,
    attempt: count,
    startedAt: z.string(),
    endedAt: z.string(),
    durationMs: z.number().min(0),
    harness: z.string(),
    exitCode: z.int().nullable(),
    signal: z.string().nullable(),
    outcome: z.string().min(1),
    completionFound: z.boolean(),
    completionAccepted: z.boolean().exactOptional(),
    refusal: z.string().exactOptional(),
    storiesPassing: count,
    storiesTotal: count,
    git: z
      .object({
        headBefore: z.string().nullable(),
        headAfter: z.string().nullable(),
        commits: z.array(z.string()),
        filesChanged: count,
        files: z.array(z.string()),
      })
      .loose()
      .exactOptional(),
    usage: z
      .object({
        inputTokens: z.number().min(0),
        outputTokens: z.number().min(0),
        cacheReadTokens: z.number().min(0),
        cacheWriteTokens: z.number().min(0),
        costUsd: z.number().min(0).exactOptional(),
      })
      .loose()
      .exactOptional(),
    resources: z
      .object({ cpuMs: z.number().min(0), peakRssBytes: z.number().min(0) })
      .loose()
      .exactOptional(),
    agentSessionId: z.string().exactOptional(),
    error: z.object({ code: z.string(), message: z.string() }).loose().exactOptional(),
    logFile: z.string().exactOptional(),
    question: z.object({ text: z.string(), length: count, source: z.string() }).loose().exactOptional(),
    answer: z.object({ question: z.string(), text: z.string() }).loose().exactOptional(),
    action: z.string().min(1),
    nextState: z.string().min(1),
  })
  .loose();

// Keeps the schema and the interface in step: a field added to one and not the other fails to compile.
const _schemaMatches: (parsed: z.output<typeof iterationRecordSchema>) => IterationRecord = (parsed) => parsed;
void _schemaMatches;

/** Checks a record before it is appended, so that a bug never writes a line that breaks resume. */
export function checkRecordForWrite(record: IterationRecord, path: string): void {
  const checked = iterationRecordSchema.safeParse(record);
  if (!checked.success) {
    throw new WiggumError(
      'E_INTERNAL',
      `refusing to append an invalid iteration record to ${path}: ${describeIssues(checked.error.issues)}`,
      {
        details: { path, record },
      },
    );
  }
}

/** Reads history.jsonl: a line that is not JSON, or not an iteration record, is E_MEMORY_CORRUPT with its line number. */
export async function readHistoryFile(path: string): Promise<IterationRecord[]> {
  const values = await readJsonLines(path);
  const records: IterationRecord[] = [];
  for (let index = 0; index < values.length; index += 1) {
    const checked = iterationRecordSchema.safeParse(values[index]);
    if (!checked.success) {
      const line = await lineOfValue(path, index);
      throw new WiggumError(
        'E_MEMORY_CORRUPT',
        `${path}:${line}: not an iteration record (${describeIssues(checked.error.issues)}); fix or remove that line`,
        { details: { path, line } },
      );
    }
    records.push(checked.data);
  }
  return records;
}

/** The 1-based line of the index-th value, counted as readJsonLines counts them (blank lines are skipped). */
async function lineOfValue(path: string, index: number): Promise<number> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const lines = text.split('\n');
  let seen = -1;
  for (let line = 0; line < lines.length; line += 1) {
    if ((lines[line] ?? '').trim() === '') continue;
    seen += 1;
    if (seen === index) return line + 1;
  }
  return index + 1;
}
