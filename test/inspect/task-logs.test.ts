import { describe, expect, test } from 'vitest';
import { followEnded } from '../../src/inspect/follow-end.js';
import { lastEventLine } from '../../src/cli/last-event.js';
import { driverOfHarness, harnessOfLog, logHeader, orderLogs, parseLogName } from '../../src/inspect/task-logs.js';
import type { IterationRecord } from '../../src/memory/history.js';

describe('the harness logs of a session', () => {
  test.each([
    ['0001.log', { iteration: 1, attempt: 0 }],
    ['0012.retry2.log', { iteration: 12, attempt: 2 }],
    ['12345.log', { iteration: 12345, attempt: 0 }],
    ['notes.log', null],
    ['0001.log.tmp', null],
    ['001.log', null],
  ])('%s stands for %j', (name, expected) => {
    expect(parseLogName(name)).toEqual(expected);
  });

  test('are read in the order they were written: by iteration, then retry', () => {
    const names = ['0002.log', '0001.retry1.log', 'README', '0010.log', '0001.log', '0001.retry2.log'];
    expect(orderLogs('/s/logs', names).map((log) => log.name)).toEqual([
      '0001.log',
      '0001.retry1.log',
      '0001.retry2.log',
      '0002.log',
      '0010.log',
    ]);
    expect(orderLogs('/s/logs', ['0003.log'])[0]?.path).toBe('/s/logs/0003.log');
  });

  const record = (iteration: number, attempt: number, harness: string, logFile?: string): IterationRecord =>
    ({ iteration, attempt, harness, ...(logFile === undefined ? {} : { logFile }) }) as IterationRecord;
  const log = (iteration: number, attempt = 0) =>
    orderLogs('/s/logs', [`${String(iteration).padStart(4, '0')}${attempt === 0 ? '' : `.retry${attempt}`}.log`])[0]!;

  test.each([
    ['the record that names the log', log(1), [record(1, 0, 'claude', '/elsewhere/logs/0001.log')], 'codex', 'claude'],
    [
      'the record of its iteration and attempt',
      log(2, 1),
      [record(2, 0, 'codex'), record(2, 1, 'claude')],
      null,
      'claude',
    ],
    ['the harness running now, for a log no record names yet', log(3), [record(1, 0, 'claude')], 'codex', 'codex'],
    ['nothing known', log(3), [], null, null],
  ])('a log was written by %s', (_why, file, history, current, expected) => {
    expect(harnessOfLog(file, history, current)).toBe(expected);
  });

  test.each([
    ['claude', 'claude'],
    ['demo', 'command'],
    ['missing', 'command'],
    [null, 'command'],
  ])('harness %s is read by the %s driver', (name, kind) => {
    const config = {
      harnesses: {
        claude: { name: 'claude', kind: 'claude', command: 'claude', args: [], env: {} },
        demo: { name: 'demo', kind: 'command', command: 'x', args: [], env: {} },
      },
    } as never;
    expect(driverOfHarness(name, config).kind).toBe(kind);
  });

  test('each log has a one-line header that says its iteration, retry, harness and file', () => {
    expect(logHeader(log(3), 'claude', '.wiggum/sessions/t/logs/0003.log')).toBe(
      '── iteration 3 · claude · .wiggum/sessions/t/logs/0003.log\n',
    );
    expect(logHeader(log(3, 1), null, 'x')).toBe('── iteration 3 (retry 1) · x\n');
  });
});

describe('logs --follow', () => {
  test.each([
    [null, true],
    ['done', true],
    ['rejected', true],
    ['stopped', true],
    ['queued', false],
    ['running', false],
    ['waiting', false],
    ['interrupted', false],
  ] as const)('a task whose checkpoint says %s has ended: %s', (status, ended) => {
    expect(followEnded(status)).toBe(ended);
  });
});

describe("an agent's last event", () => {
  test.each([
    ['its last text', 'hello\nworking on it\n', 'working on it'],
    ['a tool call', '● Claude Code · session 1\nTEXT\n→ Bash: ls\n', '→ Bash: ls'],
    ['a tool result, trimmed', '→ Bash: ls\n  ← a.txt (+2 more lines)\n', '← a.txt (+2 more lines)'],
    ['not the closing summary', 'TEXT\n✓ Claude Code finished (2 turns)\n', 'TEXT'],
    ['not the session banner', '● Claude Code · model x · session 1\n', null],
    ['nothing yet', '', null],
  ])('is %s', (_what, rendered, expected) => {
    expect(lastEventLine(rendered)).toBe(expected);
  });
});
