import type { LogEvent } from '../../src/log/events.js';

/** A parsed JSON log line, as far as a test looks at it. */
export interface EventLine {
  event?: unknown;
  [key: string]: unknown;
}

/**
 * A test on a log line: it says `event` happened (docs/logging.md), and each of `fields` has the
 * value given (`{ taskId: 'a' }`). Tests match on this, not on the message, whose wording is for
 * people; a test about the wording reads `msg` itself.
 */
export function isEvent(event: LogEvent, fields: Record<string, unknown> = {}): (line: EventLine) => boolean {
  return (line) => line.event === event && Object.entries(fields).every(([key, value]) => line[key] === value);
}

/** Like `isEvent`, about the file `name` (`a.md`, or `Later/a.md`): the line's absolute `file` ends in it. */
export function isEventOn(event: LogEvent, name: string): (line: EventLine) => boolean {
  return (line) => line.event === event && typeof line.file === 'string' && line.file.endsWith(`/${name}`);
}
