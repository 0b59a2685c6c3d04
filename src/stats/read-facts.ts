import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { locateFrontmatter } from '../task/frontmatter.js';
import { idFromFileName } from '../task/id.js';
import { plainFrontmatterKeys } from '../task/state.js';
import { TASK_ID_PATTERN } from '../task/vocabulary.js';
import type { VaultLayout } from '../vault/layout.js';
import { isTaskFileName } from '../vault/names.js';
import type { TaskEnding, TaskFacts } from './figures.js';

/** The facts of one ended task file, and whether its history had a line that could not be read. */
export interface FileFacts {
  facts: TaskFacts;
  historyUnreadable: boolean;
}

/** Every ended task's facts, and how many histories had a line skipped. */
export interface VaultFacts {
  facts: TaskFacts[];
  unreadableHistories: number;
}

/** Where each ending's files are. */
export function endingFolders(layout: VaultLayout): Record<TaskEnding, string> {
  return { done: layout.done, review: layout.review, rejected: layout.rejected };
}

/** The task files in a folder; a missing folder has none. */
export async function taskNamesIn(folder: string): Promise<string[]> {
  return (await readdir(folder).catch(() => [] as string[])).filter(isTaskFileName);
}

/**
 * Reads the facts of every task in Done/, Review/ and Rejected/: the head of each task file (its
 * frontmatter) and its session's history.jsonl. A file that cannot be read is counted, never thrown.
 */
export async function readVaultFacts(layout: VaultLayout, defaultHarness: string | null): Promise<VaultFacts> {
  const files: { file: string; ending: TaskEnding }[] = [];
  for (const [ending, folder] of Object.entries(endingFolders(layout)) as [TaskEnding, string][])
    for (const name of await taskNamesIn(folder)) files.push({ file: join(folder, name), ending });
  const read: FileFacts[] = [];
  for (const { file, ending } of files) read.push(await readTaskFacts(file, ending, layout.sessions, defaultHarness));
  return {
    facts: read.map((one) => one.facts),
    unreadableHistories: read.filter((one) => one.historyUnreadable).length,
  };
}

const WANTED = new Set(['id', 'harness', 'persistence_loop']);
/** The frontmatter of a task wiggum ended fits here; a longer one is read whole. */
const HEAD_BYTES = 16 * 1024;

/**
 * One ended task's facts from its file's frontmatter and its history; never throws. The reads are
 * synchronous: over thousands of small files the thread-pool round trips of async calls cost
 * several times the reads (as for `wiggum status`); a caller that must stay responsive yields
 * between files.
 */
export async function readTaskFacts(
  file: string,
  ending: TaskEnding,
  sessionsRoot: string,
  defaultHarness: string | null,
): Promise<FileFacts> {
  const head = readHead(file);
  const frontmatter = head === null ? undefined : await frontmatterOf(file, head);
  if (frontmatter === undefined)
    return { facts: unreadable(ending, head?.mtimeMs ?? null, defaultHarness), historyUnreadable: false };
  const id =
    typeof frontmatter['id'] === 'string' && TASK_ID_PATTERN.test(frontmatter['id'])
      ? frontmatter['id']
      : idFromFileName(basename(file));
  const loop = objectOr(frontmatter['persistence_loop']);
  const stateData = objectOr(objectOr(loop?.['checkpoint'])?.['state_data']);
  const history = readHistory(join(sessionsRoot, id, 'history.jsonl'), countOf(stateData?.['history_base']) ?? 0);
  const spent = objectOr(stateData?.['spent']);
  const checkpointTokens =
    spent === undefined ? null : (countOf(spent['input_tokens']) ?? 0) + (countOf(spent['output_tokens']) ?? 0);
  const checkpointCost = spent === undefined ? null : amountOf(spent['cost_usd']);
  return {
    facts: {
      ending,
      readable: true,
      harness:
        (typeof frontmatter['harness'] === 'string' ? frontmatter['harness'] : null) ??
        history.harness ??
        defaultHarness ??
        'unknown',
      startedAtMs: timeOf(loop?.['started']),
      endedAtMs: timeOf(loop?.['ended']) ?? timeOf(loop?.['updated']) ?? head?.mtimeMs ?? null,
      iterations: countOf(loop?.['iteration']) ?? history.iterations,
      tokens: checkpointTokens ?? history.tokens,
      costUsd: spent === undefined ? history.costUsd : checkpointCost,
      refusedClaims: history.refusedClaims,
      retries: history.retries,
      usageLimitWaits: history.usageLimitWaits,
    },
    historyUnreadable: history.unreadable,
  };
}

function unreadable(ending: TaskEnding, mtimeMs: number | null, defaultHarness: string | null): TaskFacts {
  return {
    ending,
    readable: false,
    harness: defaultHarness ?? 'unknown',
    startedAtMs: null,
    endedAtMs: mtimeMs,
    ...NOTHING_COUNTED,
  };
}

interface Head {
  text: string;
  /** The whole file was read. */
  whole: boolean;
  mtimeMs: number;
}

let headBuffer: Buffer | undefined;

/** The first {@link HEAD_BYTES} of a file (cut at its last whole line), or null when it cannot be read. */
function readHead(file: string): Head | null {
  let fd;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return null;
    // One buffer serves every read (they are synchronous and the text is copied out of it): reading
    // 9,000 heads at a daemon's start then allocates 16 KB once, not 9,000 times.
    headBuffer ??= Buffer.allocUnsafe(HEAD_BYTES);
    const buffer = headBuffer;
    const bytesRead = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    const whole = bytesRead < HEAD_BYTES || stat.size <= HEAD_BYTES;
    const end = whole ? bytesRead : buffer.lastIndexOf(0x0a, bytesRead - 1) + 1;
    return { text: buffer.toString('utf8', 0, end), whole, mtimeMs: stat.mtimeMs };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The wanted frontmatter keys ({} for a file without them), read plainly from the head; a head that
 * does not settle it is read whole, and frontmatter the plain reader is unsure of is parsed as
 * YAML (the parser loaded only then). Undefined when the frontmatter cannot be read.
 */
async function frontmatterOf(file: string, head: Head): Promise<Record<string, unknown> | undefined> {
  const quick = plainFrontmatterKeys(head.text, WANTED);
  if (quick !== undefined) return quick ?? {};
  let text = head.text;
  if (!head.whole) {
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    const again = plainFrontmatterKeys(text, WANTED);
    if (again !== undefined) return again ?? {};
  }
  // Only the YAML is parsed, not checked against the task schema: a task rejected for a bad key
  // elsewhere in its frontmatter still has its checkpoint read.
  let layout;
  try {
    layout = locateFrontmatter(text);
  } catch {
    return undefined;
  }
  const { parseSafeYaml } = await import('../yaml/safe-yaml.js');
  const parsed = parseSafeYaml(text.slice(layout.yamlStart, layout.yamlEnd));
  return parsed.ok ? parsed.value.data : undefined;
}

/** The figures a history adds up, the same fields as a task's facts. */
type CountedFacts = Pick<
  TaskFacts,
  'iterations' | 'tokens' | 'costUsd' | 'refusedClaims' | 'retries' | 'usageLimitWaits'
>;

/** Where nothing was read: no figure known, no event counted. */
const NOTHING_COUNTED: Readonly<CountedFacts> = {
  iterations: null,
  tokens: null,
  costUsd: null,
  refusedClaims: 0,
  retries: 0,
  usageLimitWaits: 0,
};

interface HistoryFacts extends CountedFacts {
  harness: string | null;
  /** A line was not JSON or not an object: it was skipped. */
  unreadable: boolean;
}

/**
 * What a task's history.jsonl says from line `base` on (the lines before are a run before the task
 * was sent back). Only the fields counted here are looked at, without the full record schema:
 * a missing history says nothing, a bad line is skipped and noted.
 */
function readHistory(file: string, base: number): HistoryFacts {
  const facts: HistoryFacts = { harness: null, ...NOTHING_COUNTED, unreadable: false };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return facts;
  }
  const lines = text.split('\n');
  // An unterminated last line is being written (store/json-lines.ts): not read.
  if (!text.endsWith('\n')) lines.pop();
  let seen = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    seen += 1;
    if (seen <= base) continue;
    let record: Record<string, unknown> | undefined;
    try {
      record = objectOr(JSON.parse(line));
    } catch {
      record = undefined;
    }
    if (record === undefined) {
      facts.unreadable = true;
      continue;
    }
    if (typeof record['harness'] === 'string') facts.harness = record['harness'];
    const iteration = countOf(record['iteration']);
    if (iteration !== null) facts.iterations = Math.max(facts.iterations ?? 0, iteration);
    if ((countOf(record['attempt']) ?? 0) > 0) facts.retries += 1;
    if (record['outcome'] === 'usage-limit') facts.usageLimitWaits += 1;
    if (record['completionFound'] === true && record['completionAccepted'] === false) facts.refusedClaims += 1;
    const usage = objectOr(record['usage']);
    if (usage !== undefined) {
      facts.tokens =
        (facts.tokens ?? 0) + (amountOf(usage['inputTokens']) ?? 0) + (amountOf(usage['outputTokens']) ?? 0);
      const cost = amountOf(usage['costUsd']);
      if (cost !== null) facts.costUsd = (facts.costUsd ?? 0) + cost;
    }
  }
  return facts;
}

function objectOr(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function countOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

function amountOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** Epoch ms of an ISO time (a string, or a Date from the full parse); null when it is none. */
function timeOf(value: unknown): number | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime();
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
}
