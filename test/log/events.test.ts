import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { LOG_EVENTS } from '../../src/log/events.js';
import type { LogEvent } from '../../src/log/events.js';
import type { Logger } from '../../src/log/logger.js';
import { captureLogger } from '../helpers/capture-logger.js';

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'logging.md'), 'utf8');

/** The first cell of each row of docs/logging.md's table of events. */
function documented(): string[] {
  return [...doc.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1] ?? '');
}

describe('log events', () => {
  test('docs/logging.md lists exactly the events events.ts declares, in its order', () => {
    expect(documented()).toEqual([...LOG_EVENTS]);
  });

  test('each name is <subject>.<what happened>, lower-case kebab, and named once', () => {
    for (const event of LOG_EVENTS) expect(event).toMatch(/^[a-z]+(-[a-z]+)*\.[a-z]+(-[a-z]+)*$/);
    expect(new Set(LOG_EVENTS).size).toBe(LOG_EVENTS.length);
  });

  test('the JSON line carries the event beside the message', () => {
    const { logger, lines } = captureLogger();
    logger.child({ taskId: 'a' }).info({ event: 'task.queued', file: 'Approved/a.md' }, 'queued a.md');
    expect(lines).toEqual([expect.objectContaining({ event: 'task.queued', taskId: 'a', msg: 'queued a.md' })]);
  });

  test('a name outside the list, or a line without one, does not compile', () => {
    const { logger } = captureLogger();
    const log = (call: (logger: Logger) => void): void => call(logger);
    // @ts-expect-error: a typo is no event
    log((l) => l.info({ event: 'task.dnoe' }, 'done'));
    // @ts-expect-error: every line says what happened
    log((l) => l.info({ taskId: 'a' }, 'done'));
    // @ts-expect-error: a bare message says nothing a program can match
    log((l) => l.info('done'));
    const named: LogEvent = 'task.done';
    log((l) => l.info({ event: named }, 'done'));
  });
});
