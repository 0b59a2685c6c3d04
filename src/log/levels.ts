/**
 * The log levels a user may name (`--log-level`, `log.level`), kept apart from `logger.ts` so that
 * checking an argument does not load pino.
 */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** A pino level, or `silent` for none at all. */
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}
