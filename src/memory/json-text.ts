import { basename, dirname } from 'node:path';
import type { z } from 'zod';
import { WiggumError } from '../errors.js';
import { TASK_ID_PATTERN } from '../task/vocabulary.js';

/**
 * What to tell a person whose memory file is broken, with the command that starts the task afresh.
 * Memory files live in `sessions/<task id>/`, so the folder names the task the command needs.
 */
export function startAfresh(path: string): string {
  const folder = dirname(path);
  const id = basename(folder);
  const command =
    basename(dirname(folder)) === 'sessions' && TASK_ID_PATTERN.test(id)
      ? `\`wiggum retry ${id} --fresh\``
      : 'wiggum retry and --fresh';
  return `start the task afresh with ${command} (the old session is archived)`;
}

function fixHint(path: string): string {
  return `fix the file by hand, or ${startAfresh(path)}`;
}

/**
 * Parses a memory file's JSON text. A syntax error becomes E_MEMORY_CORRUPT naming the file and
 * the line and column where the text stops being JSON; nothing is ever replaced by a default.
 */
export function parseJsonText(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    const offset = jsonErrorOffset(text);
    const { line, column } = lineColumn(text, offset);
    const reason = (cause as Error).message;
    throw new WiggumError(
      'E_MEMORY_CORRUPT',
      `${path}: not valid JSON at line ${line}, column ${column} (${reason}); ${fixHint(path)}`,
      {
        cause,
        details: { path, line, column, offset },
      },
    );
  }
}

/** Validates parsed JSON against a schema; problems name their path inside the document. */
export function checkSchema<T extends z.ZodType>(schema: T, value: unknown, path: string): z.output<T> {
  const checked = schema.safeParse(value);
  if (checked.success) return checked.data;
  const problems = describeIssues(checked.error.issues);
  throw new WiggumError('E_MEMORY_CORRUPT', `${path}: ${problems}; ${fixHint(path)}`, {
    details: {
      path,
      issues: checked.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })),
    },
  });
}

/** `userStories.2.passes: Invalid input: expected boolean, received string` (the first three, joined). */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 3).map((issue) => {
    const where = issue.path.length === 0 ? '(top level)' : issue.path.map(String).join('.');
    return `${where}: ${issue.message}`;
  });
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return shown.join('; ') + more;
}

/**
 * The offset at which `text` stops being the beginning of any JSON document. V8 does not report
 * a position for every error, so it is found by bisection: a prefix that fails only because the
 * input ended is still viable.
 */
export function jsonErrorOffset(text: string): number {
  if (viablePrefix(text)) return text.length; // the text ends before the document does
  let low = 0; // viable
  let high = text.length; // not viable (the whole text fails)
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (viablePrefix(text.slice(0, middle))) low = middle;
    else high = middle;
  }
  return low;
}

function viablePrefix(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return true;
  } catch (error) {
    const message = (error as Error).message;
    if (message.includes('Unexpected end of JSON input')) return true;
    const position = /at position (\d+)/.exec(message);
    return position !== null && Number(position[1]) >= prefix.length;
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastNewline = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastNewline };
}
