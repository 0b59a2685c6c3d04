import type { NotifyEventName } from '../config/notify-schema.js';

/** A task an event is about, as every document names it. */
export interface EventTask {
  id: string | null;
  /** The file's path relative to the vault, where it is now (Done/x.md). */
  file: string;
  title: string;
}

/** One event, before it has an id and a time. */
export interface NotifyInput {
  event: NotifyEventName;
  task: EventTask | null;
  /** What the event is about: reason, iterations, summary, question, until, state… */
  details: Record<string, unknown>;
}

/** The JSON document sent for an event: the same bytes on every retry (it is kept in the outbox). */
export interface EventDocument {
  id: string;
  event: NotifyEventName;
  time: string;
  vault: string;
  task: EventTask | null;
  [detail: string]: unknown;
}

/**
 * The document for `input`. `id` and `time` come from the caller (a UUID and the clock): pure, so
 * the table tests pin the layout. Details never override the fixed fields.
 */
export function eventDocument(input: NotifyInput, id: string, nowMs: number, vault: string): EventDocument {
  return {
    ...input.details,
    id,
    event: input.event,
    time: new Date(nowMs).toISOString(),
    vault,
    task: input.task,
  };
}

/**
 * The task's `title:` from its frontmatter, read plainly (a quoted or bare one-line value), else
 * `fallback`: a notification is no reason to parse the whole file again.
 */
export function titleOf(text: string, fallback: string): string {
  const frontmatter = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
  const raw = /^title:[ \t]*(.+?)[ \t]*$/m.exec(frontmatter)?.[1];
  if (raw === undefined) return fallback;
  const unquoted = /^(["'])(.*)\1$/.exec(raw)?.[2] ?? raw;
  return unquoted.trim() === '' ? fallback : unquoted.trim().slice(0, 200);
}
