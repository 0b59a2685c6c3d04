import { readFile } from 'node:fs/promises';
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { WiggumError } from '../../src/errors.js';
import { compactStream, formatCompactLine } from '../../src/log/compact-line.js';
import type { CompactOptions } from '../../src/log/compact-line.js';
// pino's own logger: these lines are about rendering any record, with or without an `event`.
import type { Logger } from 'pino';

const VAULT = '/srv/vaults/main';

/** A real pino logger (the options createLogger uses) writing through the compact stream; `writes` holds what reached the terminal. */
function compactLogger(options: CompactOptions = { relativeTo: VAULT }): {
  logger: Logger;
  writes: string[];
  line: () => string;
} {
  const writes: string[] = [];
  const logger = pino(
    { level: 'trace', base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    compactStream({ write: (text: string) => writes.push(text) }, options),
  );
  const line = (): string => {
    const last = writes.at(-1) ?? '';
    // Exactly one line per event: one newline, at the end.
    expect(last.indexOf('\n')).toBe(last.length - 1);
    return last.slice(0, -1);
  };
  return { logger, writes, line };
}

describe('compact log lines', () => {
  test('time, level, task id and iteration, message, then the other fields as key=value', () => {
    const { logger, line } = compactLogger();
    logger
      .child({ taskId: 'bulk-7' })
      .info({ iteration: 3, exitCode: 0, durationMs: 412 }, 'iteration 3: continue → next iteration');
    expect(line()).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}bulk-7 #3 {2}iteration 3: continue → next iteration {2}exitCode=0 durationMs=412$/,
    );
  });

  test('without a task, the message follows the level; levels are padded to one width', () => {
    const { logger, line } = compactLogger();
    logger.warn({ concurrency: 2 }, 'file watcher error');
    expect(line()).toMatch(/^\d\d:\d\d:\d\d WARN {2}file watcher error {2}concurrency=2$/);
    logger.error('stopped');
    expect(line()).toMatch(/^\d\d:\d\d:\d\d ERROR stopped$/);
    logger.debug({ iteration: 0 }, 'starting');
    expect(line()).toMatch(/^\d\d:\d\d:\d\d DEBUG #0 {2}starting$/);
  });

  test('one line per event, however many events and whatever they hold', () => {
    const { logger, writes } = compactLogger();
    logger.info(
      { problems: ['1:1: first', '2:1: second'], stale: { pid: 12, host: 'box' } },
      'the task file is invalid',
    );
    logger.info({ output: 'line one\nline two\r\n\tthree' }, 'first line\nsecond line');
    logger.fatal({ err: new Error('boom\nwith a second line') }, 'crashed');
    logger.trace({ nothing: null, missing: undefined }, 'bare');
    expect(writes).toHaveLength(4);
    for (const text of writes) expect(text.split('\n')).toHaveLength(2);
    expect(writes[0]).toContain('problems=["1:1: first","2:1: second"] stale={"pid":12,"host":"box"}');
    expect(writes[1]).toContain('first line ⏎ second line  output="line one\\nline two\\r\\n\\tthree"');
    expect(writes[2]).toContain('crashed  err="boom\\nwith a second line"');
    expect(writes[3]).toMatch(/TRACE bare\n$/);
  });

  test('no pid, hostname or time field; strings are bare unless a space, quote or = needs quoting', () => {
    const { logger, line } = compactLogger();
    logger.info({ stories: '1/2', next: 'next iteration', empty: '', eq: 'a=b', harness: 'demo' }, 'fields');
    expect(line()).toMatch(/ fields {2}stories=1\/2 next="next iteration" empty="" eq="a=b" harness=demo$/);
    expect(line()).not.toMatch(/pid=|hostname=|time=/);
  });

  test('paths inside the vault are shown relative to it, in fields, nested values and the message', () => {
    const { logger, line } = compactLogger();
    logger.info({ vault: VAULT, file: `${VAULT}/Approved/x.md` }, `watching ${VAULT}/Approved`);
    expect(line()).toMatch(/ watching Approved {2}vault=\. file=Approved\/x\.md$/);
    logger.info(
      { actions: [{ kind: 'start', path: `${VAULT}/Approved/y.md` }], workdir: `${VAULT}/.wiggum/workspaces/y` },
      'vault reconciled',
    );
    expect(line()).toContain('actions=[{"kind":"start","path":"Approved/y.md"}] workdir=.wiggum/workspaces/y');
  });

  test('paths outside the vault, or in a sibling folder whose name starts the same, stay absolute', () => {
    const { logger, line } = compactLogger();
    logger.info(
      { workdir: '/home/me/code/shop', sibling: `${VAULT}2/Approved/x.md`, nested: `/backup${VAULT}/x.md` },
      'paths',
    );
    expect(line()).toContain(`workdir=/home/me/code/shop sibling=${VAULT}2/Approved/x.md nested=/backup${VAULT}/x.md`);
  });

  test('without relativeTo, paths are left as they are', () => {
    const { logger, line } = compactLogger({});
    logger.info({ file: `${VAULT}/Approved/x.md` }, 'queued');
    expect(line()).toContain(`file=${VAULT}/Approved/x.md`);
  });

  test('errors show their message and code, and causes, on the same line', async () => {
    const { logger, line } = compactLogger();
    logger.warn({ err: new WiggumError('E_TASK_GONE', `${VAULT}/Approved/x.md was moved or deleted`) }, 'stopping');
    expect(line()).toMatch(/ stopping {2}err="E_TASK_GONE: Approved\/x\.md was moved or deleted"$/);
    const enoent = await readFile(`${VAULT}/nowhere`).catch((error: unknown) => error);
    logger.error({ err: enoent, taskId: 't' }, 'could not read');
    // Node's message already starts with its code: it is not repeated.
    expect(line()).toMatch(/ERROR t {2}could not read {2}err="ENOENT: no such file or directory, open 'nowhere'"$/);
    logger.error(
      { err: new WiggumError('E_WRITE', 'could not write', { cause: new Error('disk full') }) },
      'checkpoint',
    );
    expect(line()).toMatch(/ checkpoint {2}err="E_WRITE: could not write: disk full"$/);
  });

  test('colours, when asked for, wrap only the level', () => {
    const { logger, line } = compactLogger({ relativeTo: VAULT, colors: true });
    logger.warn('careful');
    expect(line()).toMatch(/^\d\d:\d\d:\d\d \u001b\[33mWARN \u001b\[39m careful$/);
  });

  test('a line that is not JSON passes through untouched', () => {
    const writes: string[] = [];
    compactStream({ write: (text: string) => writes.push(text) }).write('not json\n');
    expect(writes).toEqual(['not json\n']);
  });

  const TIME = '2026-01-07T10:30:00.000Z';
  const clock = (time: string): string => {
    const date = new Date(time);
    return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  };
  const iteration = {
    level: 30,
    time: TIME,
    pid: 1,
    taskId: 'add-dark-mode',
    iteration: 3,
    attempt: 0,
    exitCode: 0,
    signal: null,
    outcome: 'complete',
    promise: true,
    stories: '3/3',
    durationMs: 1124,
    action: 'done',
    next: 'Done',
    msg: 'iteration 3: complete → Done',
  };
  test.each<[string, Record<string, unknown>, { details?: boolean; width?: number }, string]>([
    [
      'details: every field',
      iteration,
      { details: true },
      'INFO  add-dark-mode #3  iteration 3: complete → Done  attempt=0 exitCode=0 outcome=complete promise=true stories=3/3 durationMs=1124 action=done next=Done',
    ],
    [
      'on a terminal: the outcome once',
      iteration,
      { details: false, width: 100 },
      'INFO  add-dark-mode #3  iteration 3: complete → Done  stories=3/3',
    ],
    [
      'a field the message already says is left out',
      { level: 30, time: TIME, taskId: 'a', file: `${VAULT}/Done/a.md`, msg: `moved to ${VAULT}/Done/a.md` },
      { details: false, width: 100 },
      'INFO  a  moved to Done/a.md',
    ],
    [
      'a number is only left out when the message says it as a word',
      { level: 30, time: TIME, msg: 'watching 12 folders', concurrency: 2, folders: 12 },
      { details: false },
      'INFO  watching 12 folders  concurrency=2',
    ],
    [
      'errors keep their code',
      { level: 50, time: TIME, taskId: 't', code: 'E_HARNESS_FATAL', msg: 'rejected: exit 78' },
      { details: false, width: 100 },
      'ERROR t  rejected: exit 78  code=E_HARNESS_FATAL',
    ],
    [
      'a long line is cut to one column less than the terminal, ending in …',
      {
        level: 50,
        time: TIME,
        taskId: 'migrate-billing-db',
        msg: `rejected: ${'the billing database refused the migration user '.repeat(3)}`,
      },
      { details: false, width: 80 },
      'ERROR migrate-billing-db  rejected: the billing database refused the …',
    ],
    [
      'the event is left to the JSON lines: the message says it in words',
      { level: 30, time: TIME, event: 'task.queued', taskId: 'a', msg: 'queued a.md' },
      { details: false, width: 100 },
      'INFO  a  queued a.md',
    ],
    [
      'even at debug, where every other field shows',
      { level: 30, time: TIME, event: 'task.queued', taskId: 'a', msg: 'queued a.md', file: 'Approved/a.md' },
      { details: true },
      'INFO  a  queued a.md  file=Approved/a.md',
    ],
    [
      'a width that says nothing (0) cuts nothing',
      { level: 30, time: TIME, msg: 'x'.repeat(150) },
      { details: false, width: 0 },
      `INFO  ${'x'.repeat(150)}`,
    ],
  ])('%s', (_name, record, options, expected) => {
    const line = formatCompactLine(record, { relativeTo: VAULT, ...options });
    expect(line).toBe(`${clock(TIME)} ${expected}`);
    if (options.width !== undefined && options.width > 0)
      expect([...line].length).toBeLessThanOrEqual(options.width - 1);
  });

  test('with colours, the cut counts only what shows', () => {
    const line = formatCompactLine(
      { level: 40, time: TIME, msg: 'y'.repeat(200) },
      { colors: true, details: false, width: 60 },
    );
    expect(line.replace(/\u001b\[\d+m/g, '')).toHaveLength(59);
    expect(line.endsWith('…')).toBe(true);
  });
});
