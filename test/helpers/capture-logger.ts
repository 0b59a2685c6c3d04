import { pino } from 'pino';
import type { Logger } from '../../src/log/logger.js';

export interface LogLine {
  level: number;
  msg: string;
  /** What happened (docs/logging.md): what tests look for. */
  event?: string;
  [key: string]: unknown;
}

/** A real pino logger whose JSON lines are kept in `lines` for assertions. */
export function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}
