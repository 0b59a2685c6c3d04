import { basename } from 'node:path';
import { isWiggumError } from '../errors.js';
import { locateFrontmatter } from './frontmatter.js';
import { readPlainYaml } from './plain-yaml.js';
import { idFromFileName } from './id.js';
import { readTaskTextSync } from './read-text.js';
import type { TaskText } from './read-text.js';
import { LOOP_STATUSES, TASK_ID_PATTERN, TASK_STATES } from './vocabulary.js';
import type { PersistenceLoop } from './schema.js';
import type { LoopStatus, TaskState } from './vocabulary.js';

/** What `wiggum status` shows of a task's checkpoint. */
export interface LoopSummary {
  status: LoopStatus;
  iteration: number;
  max_iterations: number;
  current_step: string | null;
  updated: string | undefined;
  /** The run's session id: it names the task across a rename of its file. */
  session: string | undefined;
}

/** Where a task stands. */
export interface TaskStateView {
  file: string;
  id: string;
  state: TaskState | undefined;
  loop: LoopSummary | undefined;
  /** The harness its frontmatter names (absent: none). */
  harness?: string;
}

const WANTED = new Set(['id', 'state', 'persistence_loop', 'harness']);
const TOP_LEVEL_KEY = /^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]|$)/;

/**
 * A task's id and checkpoint (state inspection; `wiggum status` reads every task in Approved/)
 * without parsing its whole frontmatter: only the `id`, `state` and `persistence_loop` pairs are
 * cut out and read (wiggum writes them as plain YAML, which {@link readPlainYaml} reads directly).
 * Any layout it is not sure of falls back to the full parse. The other keys are not checked here:
 * a task broken elsewhere still shows its checkpoint, and is rejected with a report when it runs.
 * Returns null for a file that is gone or not a task.
 */
export async function readTaskState(file: string): Promise<TaskStateView | null> {
  let read: TaskText;
  try {
    // Read synchronously: a one-shot command reading many small files (`wiggum status` over
    // Approved/) pays more for the thread-pool round trips of async calls than for the reads.
    read = readTaskTextSync(file);
  } catch (error) {
    if (isWiggumError(error, 'E_TASK_NOT_FOUND')) return null;
    throw error;
  }
  if (read.text === null) return null;
  return quickTaskState(file, read.text) ?? fullTaskState(file, read.text);
}

/**
 * The full parse. The YAML parser and the schemas are imported on first use, so a command whose
 * tasks are all plain (`wiggum status`, usually) never loads them.
 */
export async function fullTaskState(file: string, text: string): Promise<TaskStateView | null> {
  const { parseTask } = await import('./parse.js');
  const full = parseTask(file, text);
  if (!full.ok) return null;
  const { task } = full;
  const loop = task.frontmatter.persistence_loop;
  const harness = task.frontmatter.harness;
  return {
    file,
    id: task.id,
    state: task.frontmatter.state,
    loop: loop === undefined ? undefined : summaryOf(loop),
    ...(harness === undefined ? {} : { harness }),
  };
}

/** The quick path alone: the state, null (not a task), or undefined when only the full parse can tell. */
export function quickTaskState(file: string, text: string): TaskStateView | null | undefined {
  const data = plainFrontmatterKeys(text, WANTED);
  if (data === undefined) return undefined;
  if (data === null) return { file, id: idFromFileName(basename(file)), state: undefined, loop: undefined };
  return checkedState(file, data);
}

/**
 * The top-level frontmatter keys in `wanted`, read with {@link readPlainYaml} without parsing the
 * rest: null when the file has no frontmatter or none of those keys, undefined when only the full
 * parse can tell (a layout or a value the plain reader is not sure of).
 */
export function plainFrontmatterKeys(
  text: string,
  wanted: ReadonlySet<string>,
): Record<string, unknown> | null | undefined {
  let layout;
  try {
    layout = locateFrontmatter(text);
  } catch {
    return undefined;
  }
  if (!layout.hasFrontmatter) return null;
  const lines = text.slice(layout.yamlStart, layout.yamlEnd).split('\n');
  let indent: number | null = null;
  let keep = false;
  const seen = new Set<string>();
  const picked: string[] = [];
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const trimmed = line.trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) {
      if (keep) picked.push(line);
      continue;
    }
    const lineIndent = line.length - trimmed.length;
    indent ??= lineIndent;
    if (lineIndent < indent) return undefined;
    if (lineIndent === indent) {
      const key = TOP_LEVEL_KEY.exec(trimmed)?.[1];
      if (key === undefined) return undefined;
      keep = wanted.has(key);
      if (keep) {
        if (seen.has(key)) return undefined;
        seen.add(key);
      }
    }
    if (keep) picked.push(line.slice(indent));
  }
  if (picked.length === 0) return null;
  // wiggum's own plain YAML is read directly; anything else is left to the full parse.
  return readPlainYaml(picked);
}

/**
 * The fields status shows, checked by hand (a full schema check of every task costs more than the
 * rest of `wiggum status`); anything that does not check is left to the full parse.
 */
function checkedState(file: string, data: Record<string, unknown>): TaskStateView | undefined {
  const { id, state, persistence_loop: loop, harness } = data;
  if (id !== undefined && (typeof id !== 'string' || !TASK_ID_PATTERN.test(id))) return undefined;
  if (harness !== undefined && harness !== null && typeof harness !== 'string') return undefined;
  if (state !== undefined && state !== null && !(TASK_STATES as readonly unknown[]).includes(state)) return undefined;
  let summary: LoopSummary | undefined;
  if (loop !== undefined && loop !== null) {
    if (typeof loop !== 'object' || Array.isArray(loop)) return undefined;
    summary = summaryOf(loop) ?? undefined;
    if (summary === undefined) return undefined;
  }
  return {
    file,
    id: typeof id === 'string' ? id : idFromFileName(basename(file)),
    state: (state ?? undefined) as TaskState | undefined,
    loop: summary,
    ...(typeof harness === 'string' && harness.trim() !== '' ? { harness } : {}),
  };
}

function summaryOf(loop: Partial<PersistenceLoop>): LoopSummary | undefined {
  const { status, iteration, max_iterations: max, updated } = loop;
  const step: unknown = loop.checkpoint?.current_step;
  if (!(LOOP_STATUSES as readonly unknown[]).includes(status)) return undefined;
  if (!Number.isInteger(iteration) || (iteration as number) < 0 || !Number.isInteger(max) || (max as number) < 1)
    return undefined;
  if (step !== undefined && step !== null && typeof step !== 'string') return undefined;
  if (updated !== undefined && typeof updated !== 'string') return undefined;
  const session = typeof loop.session === 'string' ? loop.session : undefined;
  return {
    status: status as LoopStatus,
    iteration: iteration as number,
    max_iterations: max as number,
    current_step: step ?? null,
    updated,
    session,
  };
}
