import type { DestinationStream } from 'pino';

/** How a terminal shows a log record. */
export interface CompactOptions {
  /** Absolute paths inside this folder (the vault) are shown relative to it. */
  relativeTo?: string;
  /** ANSI colours for the level. */
  colors?: boolean;
}

const LABELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLORS: Record<number, string> = { 10: '90', 20: '34', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Shown in the head of the line (time, level, task, iteration, message) or not at all (pid, hostname). */
const NOT_A_FIELD = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'taskId', 'iteration']);
/** A longer field value is cut: the JSON lines of a non-terminal run keep everything. */
const MAX_VALUE_CHARS = 160;

/**
 * Writes each pino JSON line as one short human line:
 * `12:04:05 INFO  bulk-7 #3  iteration 3: continue → next iteration  exitCode=0 durationMs=412`.
 */
export function compactStream(destination: { write(text: string): unknown }, options: CompactOptions = {}): DestinationStream {
  return {
    write(line: string): void {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        destination.write(line);
        return;
      }
      destination.write(`${formatCompactLine(record as Record<string, unknown>, options)}\n`);
    },
  };
}

/** One pino record (parsed) as one line, without its newline. */
export function formatCompactLine(record: Record<string, unknown>, options: CompactOptions = {}): string {
  const relative = relativizer(options.relativeTo);
  const level = typeof record.level === 'number' ? record.level : 30;
  const label = (LABELS[level] ?? `L${level}`).padEnd(5);
  const head = [clockTime(record.time), options.colors === true ? `\u001b[${COLORS[level] ?? '0'}m${label}\u001b[39m` : label].filter((part) => part !== '').join(' ');

  const subject = [typeof record.taskId === 'string' ? oneLine(record.taskId) : '', typeof record.iteration === 'number' ? `#${record.iteration}` : ''].filter((part) => part !== '').join(' ');
  const message = typeof record.msg === 'string' ? oneLine(relative(record.msg)) : '';
  const fields: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (NOT_A_FIELD.has(key)) continue;
    const text = fieldValue(key, value, relative);
    if (text !== undefined) fields.push(`${key}=${text}`);
  }
  return `${head} ${[subject, message, fields.join(' ')].filter((part) => part !== '').join('  ')}`.trimEnd();
}

/** `HH:MM:SS` in local time, from pino's ISO time or epoch milliseconds; '' when there is none. */
function clockTime(time: unknown): string {
  if (typeof time !== 'string' && typeof time !== 'number') return '';
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) return '';
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function fieldValue(key: string, value: unknown, relative: (text: string) => string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (key === 'err' && typeof value === 'object' && 'message' in value) return quoted(cut(relative(errorText(value))));
  if (typeof value === 'string') return quoted(cut(relative(value)));
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return cut(JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'string' ? relative(inner) : inner)));
}

/** A serialized error: its message (causes included, as pino joins them) with its code in front. */
function errorText(error: { message?: unknown; code?: unknown }): string {
  const message = typeof error.message === 'string' ? error.message : '';
  const code = typeof error.code === 'string' || typeof error.code === 'number' ? String(error.code) : '';
  return code === '' || message.includes(code) ? message : `${code}: ${message}`;
}

/** Bare when it reads unambiguously, else a JSON string (which also escapes newlines). */
function quoted(text: string): string {
  return text !== '' && !/[\s"'=\\\u0000-\u001f\u007f]/.test(text) ? text : JSON.stringify(text);
}

function cut(text: string): string {
  return text.length <= MAX_VALUE_CHARS ? text : `${text.slice(0, MAX_VALUE_CHARS - 1)}…`;
}

/** A message stays on its line: newlines become ⏎, other control characters are escaped. */
function oneLine(text: string): string {
  return text
    .replace(/\r?\n/g, ' ⏎ ')
    .replace(/\t/g, ' ')
    .replace(/[\u0000-\u001f\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Rewrites `<root>/a/b` to `a/b` wherever it appears, and a text that is exactly the root to `.`.
 * The root must start a path (not follow a path character), so `/x/vault2/a` is left alone.
 */
function relativizer(root: string | undefined): (text: string) => string {
  const trimmed = root?.replace(/\/+$/, '');
  if (trimmed === undefined || trimmed === '') return (text) => text;
  const inside = new RegExp(`(?<![\\w.~/-])${trimmed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?=[^/])`, 'g');
  return (text) => (text === trimmed ? '.' : text.replace(inside, ''));
}
