import { appendFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readBounded } from '../store/bounded-read.js';

/**
 * Context added from inside a task's own run. A confined agent sees copies of its memory, not the
 * session (sandbox/…: wiggum's records are out of its reach), so `wiggum ralph --add-context` or
 * `wiggum context add` run by the agent, or by a command it starts, cannot reach the session: it
 * leaves the text in an inbox beside the copy of context.md it was given (WIGGUM_CONTEXT), one
 * JSON string a line, and wiggum takes it into the session after the run. The agent could write
 * the same into progress.txt: nothing here reaches further than its own next prompt.
 */
const INBOX = 'context.add';

/** An inbox larger than this is not read (untrusted input): dropped whole. */
const INBOX_READ_LIMIT = 64 * 1024;

/**
 * Pure: the inbox a context command writes to when it runs inside the run of task `taskId` whose
 * context copy is not the session's own (`sessionContext`); null: write to the session as usual.
 */
export function contextInboxFor(
  env: Readonly<Record<string, string | undefined>>,
  taskId: string,
  sessionContext: string,
): string | null {
  const told = env['WIGGUM_CONTEXT'];
  if (env['WIGGUM_TASK_ID'] !== taskId || told === undefined || told === '' || told === sessionContext) return null;
  return join(dirname(told), INBOX);
}

export async function addToContextInbox(inbox: string, text: string): Promise<void> {
  await appendFile(inbox, `${JSON.stringify(text)}\n`);
}

/** After the run: the texts left in `dir`'s inbox, oldest first, and the inbox removed. */
export async function takeContextInbox(dir: string): Promise<string[]> {
  const inbox = join(dir, INBOX);
  // Its size on the opened file first; a link, a FIFO or a device in its place is not read either.
  const read = await readBounded(inbox, INBOX_READ_LIMIT, { noFollow: true }).catch(() => ({
    kind: 'refused' as const,
  }));
  if (read.kind === 'missing') return [];
  const text = read.kind === 'text' ? read.text : '';
  await rm(inbox, { force: true });
  return parseInbox(text);
}

/** Pure: the inbox's lines that are JSON strings; anything else is skipped. */
export function parseInbox(text: string): string[] {
  const texts: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'string' && value.trim() !== '') texts.push(value);
    } catch {
      // a torn or foreign line: not context
    }
  }
  return texts;
}
