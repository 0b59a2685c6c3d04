import { pino } from 'pino';
import type { DestinationStream, LogFn, Logger as PinoLogger } from 'pino';
import type { SecretMask } from '../secret-mask.js';
import { compactStream } from './compact-line.js';
import type { LiveLine } from './live-line.js';
import type { LogEvent } from './events.js';
import type { LogLevel } from './levels.js';

export type { LogEvent, LogLevel };

/**
 * The fields of one log line: `event` names what happened, for programs (tests, `jq`, a log
 * shipper) to match instead of the message, which is worded for people; the rest are its details.
 */
export interface LogFields {
  event: LogEvent;
  [key: string]: unknown;
}

/** One log call: what happened and its details, then the line a person reads. */
export type LogMethod = (fields: LogFields, message?: string) => void;

/**
 * pino's logger as the rest of wiggum sees it: every line says its `event`, so a line without one,
 * or with a name events.ts does not list, is a type error where it is written.
 */
export interface Logger {
  /** A level name; set to change what is written from now on (SIGHUP reloads it). */
  level: string;
  trace: LogMethod;
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  fatal: LogMethod;
  /** A logger whose every line also carries `bindings` (a task's id). */
  child(bindings: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  level: LogLevel;
  /** stdout for the daemon (journald reads it); stderr for foreground commands, whose stdout is the agent's. */
  fd: 1 | 2;
  /** One short human line per event instead of JSON; default: when the stream is a terminal. */
  pretty?: boolean;
  /** On a terminal: a status line kept under the log (the daemon's running tasks). */
  liveLine?: LiveLine;
  /** The vault: in human lines, paths inside it are shown relative to it. JSON lines keep them absolute. */
  relativeTo?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * The secret values every line is masked with as it is written (the daemon's, from its config and
   * environment: config/secret-values.ts); asked for each line, so that a reload's new set applies.
   */
  mask?: () => SecretMask;
}

/**
 * pino, one JSON object a line, written synchronously so that nothing logged before a crash or an
 * exit is lost. On a terminal, one compact line per event instead (`compact-line.ts`), coloured
 * unless NO_COLOR is set. Under systemd (JOURNAL_STREAM is set and the stream is not a terminal)
 * each JSON line starts with `<N>`, the syslog priority of its level, which journald strips and
 * keeps as the entry's priority: `journalctl -p warning` then shows warnings and worse.
 */
export function createLogger(options: LoggerOptions): Logger {
  const env = options.env ?? process.env;
  const tty = (options.fd === 1 ? process.stdout : process.stderr).isTTY;
  const pretty = options.pretty ?? tty;
  const base = {
    level: options.level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: {
      logMethod: logOnce,
      ...(options.mask === undefined ? {} : { streamWrite: maskWith(options.mask) }),
    },
  };
  const destination = pino.destination({ fd: options.fd, sync: true });
  if (pretty) {
    const stream = options.fd === 1 ? process.stdout : process.stderr;
    const colors = tty && (env.NO_COLOR === undefined || env.NO_COLOR === '');
    const live = options.liveLine;
    const out = live === undefined ? destination : { write: (text: string) => live.writeAbove(text) };
    // At info and above a terminal gets one line per event that fits its width; debug and trace
    // show every field, as the JSON lines do.
    const details = options.level === 'debug' || options.level === 'trace';
    const columns = tty && !details ? { columns: () => stream.columns || TERMINAL_COLUMNS } : {};
    return pino(
      base,
      compactStream(out, {
        colors,
        details,
        ...columns,
        ...(options.relativeTo === undefined ? {} : { relativeTo: options.relativeTo }),
      }),
    );
  }
  if (env.JOURNAL_STREAM !== undefined && env.JOURNAL_STREAM !== '') return pino(base, withSyslogPriority(destination));
  return pino(base, destination);
}

/** A line masked as a whole: a value in any field or the message is `[redacted]`, and the JSON stays valid. */
function maskWith(mask: () => SecretMask): (line: string) => string {
  return (line) => mask().text(line);
}

/** The keys pino writes on every line itself (`pid` from `base`). */
const LINE_KEYS = new Set(['level', 'time', 'pid']);

/**
 * The fields of one log call, without the keys the line already carries: a child logger bound with
 * `taskId` that is also given `{ taskId }` would write the key twice, which JSON readers take
 * differently (the last wins, or the line is refused). The same value is dropped; a different one is
 * kept as `otherKey`, so nothing logged is lost.
 */
export function withoutRepeatedKeys(
  fields: Record<string, unknown>,
  bound: Record<string, unknown>,
): Record<string, unknown> {
  const repeated = Object.keys(fields).filter((key) => LINE_KEYS.has(key) || Object.hasOwn(bound, key));
  if (repeated.length === 0) return fields;
  const kept: Record<string, unknown> = { ...fields };
  for (const key of repeated) {
    const value = kept[key];
    delete kept[key];
    if (!LINE_KEYS.has(key) && bound[key] === value) continue;
    kept[`other${key.charAt(0).toUpperCase()}${key.slice(1)}`] = value;
  }
  return kept;
}

function logOnce(this: PinoLogger, args: Parameters<LogFn>, method: LogFn): void {
  const [first] = args;
  if (typeof first === 'object' && first !== null && Object.getPrototypeOf(first) === Object.prototype) {
    args[0] = withoutRepeatedKeys(first as Record<string, unknown>, this.bindings());
  }
  method.apply(this, args);
}

/** A terminal that does not say its width (0, or none under some pseudo-terminals). */
const TERMINAL_COLUMNS = 100;

const PRIORITY_BY_LEVEL: Record<number, number> = { 10: 7, 20: 7, 30: 6, 40: 4, 50: 3, 60: 2 };

/** Prefixes each line with `<N>` for journald (sd-daemon(3)); the level is the first field pino writes. */
function withSyslogPriority(destination: DestinationStream): DestinationStream {
  return {
    write(line: string): void {
      const level = /^\{"level":(\d+)/.exec(line)?.[1];
      destination.write(`<${PRIORITY_BY_LEVEL[Number(level)] ?? 6}>${line}`);
    },
  };
}

/** A logger that drops everything, for library use and tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
