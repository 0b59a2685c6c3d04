import type { DestinationStream } from 'pino';

/** How a terminal shows a log record. */
export interface CompactOptions {
  /** Absolute paths inside this folder (the vault) are shown relative to it. */
  relativeTo?: string;
  /** ANSI colours for the level. */
  colors?: boolean;
  /**
   * false (a terminal at `info` and above): the line says what happened once and leaves the
   * details to `--log-level debug` and the JSON lines: fields that restate the message or only
   * detail it (DETAILS) are left out. Default true: every field.
   */
  details?: boolean;
  /** The terminal's width: a longer line is cut to one column less, ending in `…`, so it never wraps. */
  columns?: () => number | undefined;
}

const LABELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLORS: Record<number, string> = { 10: '90', 20: '34', 30: '32', 40: '33', 50: '31', 60: '35' };
/**
 * Shown in the head of the line (time, level, task, iteration, message) or not at all: pid,
 * hostname, and `event`, which is for programs reading the JSON lines (the message says it in words).
 */
const NOT_A_FIELD = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'event', 'taskId', 'iteration']);
/** A longer field value is cut: the JSON lines of a non-terminal run keep everything. */
const MAX_VALUE_CHARS = 160;
/**
 * Fields that restate an event's message or only detail it: shown with `details` only. An
 * iteration's message already says its outcome and what comes next (`iteration 3: continue → next
 * iteration`), so outcome, action and next would say it twice more.
 */
export const DETAILS: ReadonlySet<string> = new Set([
  'attempt',
  'exitCode',
  'signal',
  'outcome',
  'promise',
  'action',
  'next',
  'durationMs',
  'session',
  'workdir',
  'durable',
  'maxIterations',
  'iterations',
  'file',
  'graceMs',
  'running',
]);

/**
 * Writes each pino JSON line as one short human line:
 * `12:04:05 INFO  bulk-7 #3  iteration 3: continue → next iteration  exitCode=0 durationMs=412`.
 */
export function compactStream(
  destination: { write(text: string): unknown },
  options: CompactOptions = {},
): DestinationStream {
  return {
    write(line: string): void {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        destination.write(line);
        return;
      }
      const columns = options.columns?.();
      destination.write(
        `${formatCompactLine(record as Record<string, unknown>, { ...options, ...(columns === undefined ? {} : { width: columns }) })}\n`,
      );
    },
  };
}

/** One pino record (parsed) as one line, without its newline; `width`: the terminal's columns. */
export function formatCompactLine(
  record: Record<string, unknown>,
  options: Omit<CompactOptions, 'columns'> & { width?: number } = {},
): string {
  const relative = relativizer(options.relativeTo);
  const level = typeof record.level === 'number' ? record.level : 30;
  const label = (LABELS[level] ?? `L${level}`).padEnd(5);
  const time = clockTime(record.time);
  const head = [time, options.colors === true ? `\u001b[${COLORS[level] ?? '0'}m${label}\u001b[39m` : label]
    .filter((part) => part !== '')
    .join(' ');
  const headWidth = [time, label].filter((part) => part !== '').join(' ').length;

  const subject = [
    typeof record.taskId === 'string' ? oneLine(record.taskId) : '',
    typeof record.iteration === 'number' ? `#${record.iteration}` : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
  const message = typeof record.msg === 'string' ? oneLine(relative(record.msg)) : '';
  const fields: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (NOT_A_FIELD.has(key)) continue;
    const text = fieldValue(key, value, relative);
    if (text === undefined) continue;
    // Without details: no field that only details the event, or whose value the message already says.
    if (options.details === false && (DETAILS.has(key) || saysAlready(message, text))) continue;
    fields.push(`${key}=${text}`);
  }
  const rest = [subject, message, fields.join(' ')]
    .filter((part) => part !== '')
    .join('  ')
    .trimEnd();
  const width =
    options.width === undefined || options.width <= 0 ? undefined : Math.max(20, options.width - 1) - headWidth - 1;
  return `${head} ${width === undefined ? rest : fit(rest, width)}`.trimEnd();
}

/** The message already says the value as a whole word: the path in "moved to Done/x.md", the 12 in "watching 12 folders" (not the 2 in it). */
function saysAlready(message: string, value: string): boolean {
  let bare = value;
  try {
    if (value.startsWith('"')) bare = JSON.parse(value) as string;
  } catch {
    // Not a whole JSON string: compared as it is.
  }
  if (bare === '') return false;
  return new RegExp(`(^|[^\\w])${bare.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w])`).test(message);
}

/** At most `width` characters (code points), the last one `…` when cut. */
function fit(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
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
