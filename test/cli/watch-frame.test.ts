import { describe, expect, test } from 'vitest';
import type { TaskEntry } from '../../src/daemon/status.js';
import { duration, renderFrame, spentText, why } from '../../src/cli/watch-frame.js';
import type { WatchSnapshot, WatchedTask } from '../../src/cli/watch-frame.js';
import { viewOfEntries } from '../helpers/picture-view.js';
import type { PictureSetup } from '../helpers/picture-view.js';

const NOW = Date.parse('2026-11-25T14:00:00Z');

const entry = (fields: Partial<TaskEntry> & Pick<TaskEntry, 'id' | 'phase'>): TaskEntry => ({
  name: `${fields.id}.md`,
  file: `/v/Approved/${fields.id}.md`,
  sinceMs: NOW - 12_000,
  ...fields,
});
const DAEMON = {
  version: 1 as const,
  pid: 42,
  vault: '/v',
  startedAtMs: NOW - 65_000,
  updatedAtMs: NOW,
  lifecycle: 'running' as const,
  held: false,
  concurrency: 4,
};
/** The picture of these entries (and setup) as a frame's tasks; `extra` adds session facts by id. */
const pictured = (
  entries: TaskEntry[],
  setup: PictureSetup = {},
  extra: Record<string, Partial<WatchedTask>> = {},
): WatchedTask[] =>
  viewOfEntries(entries, { daemon: DAEMON, ...setup }).tasks.map((task) => ({
    task,
    spent: null,
    lastEvent: null,
    ...extra[task.id],
  }));

const snapshot = (fields: Partial<WatchSnapshot>): WatchSnapshot => ({
  vault: '/v',
  nowMs: NOW,
  daemon: { pid: 42, lifecycle: 'running', startedAtMs: NOW - 65_000, concurrency: 4 },
  counts: { approved: 3, blocked: 0, review: 0, done: 1, rejected: 0 },
  held: false,
  tasks: [],
  ...fields,
});

describe('a frame of status --watch', () => {
  test("a running task: its iteration count, story, elapsed time, tokens and cost so far, its agent's last event", () => {
    const frame = renderFrame(
      snapshot({
        tasks: pictured(
          [
            entry({
              id: 'login',
              phase: 'running',
              iteration: 2,
              maxIterations: 8,
              current: 3,
              step: 'US-002',
              harness: 'claude',
              taskStartedMs: NOW - 125_000,
            }),
          ],
          {},
          { login: { spent: { inputTokens: 2400, outputTokens: 680, costUsd: 0.025 }, lastEvent: '→ Bash: npm test' } },
        ),
      }),
    );
    expect(frame).toBe(
      [
        'wiggum 14:00:00 · /v',
        'daemon: running, pid 42, up 1m 05s, 4 at a time',
        'Approved 3 · Blocked 0 · Review 0 · Done 1 · Rejected 0',
        '',
        'running (1):',
        '  login · iterations 2 of 8 done, the 3rd running · US-002 · running 12s (task 2m 05s) · claude · 3,080 tokens · $0.0250',
        '      → Bash: npm test',
        '',
      ].join('\n'),
    );
  });

  test('waiting, held and stopped tasks say why; queued ones wait their turn', () => {
    const frame = renderFrame(
      snapshot({
        held: true,
        tasks: pictured([
          entry({ id: 'flaky', phase: 'waiting', waitingFor: 'retry', untilMs: NOW + 3_000 }),
          entry({ id: 'next', phase: 'queued' }),
          entry({ id: 'old', phase: 'stopped', iteration: 4, lastOutcome: 'stopped' }),
        ]),
      }),
    );
    expect(frame).toContain('STOP exists: nothing new starts');
    expect(frame).toContain('retrying (1):\n  flaky · waiting to retry, 3s left\n');
    expect(frame).toContain('queued (1):\n  next · queued 12s\n');
    expect(frame).toContain('stopped (1):\n  old · iterations 4 done · held: its stop flag (wiggum resume old)\n');
    expect(frame).not.toContain('running (');
  });

  test('tasks the order of work holds wait their turn; the ones only a person can fix wait for you', () => {
    const frame = renderFrame(
      snapshot({
        tasks: pictured([], {
          waits: [
            {
              name: 'chain-b.md',
              file: '/v/Approved/chain-b.md',
              reason: { kind: 'dependencies', ids: ['chain-a'] },
              message: 'waits for chain-a',
            },
            {
              name: 'cyc.md',
              file: '/v/Approved/cyc.md',
              reason: { kind: 'dependency-cycle', ids: ['cyc', 'other'] },
              message: 'a depends_on cycle: cyc → other → cyc',
            },
            { name: 'blank.md', file: '/v/Approved/blank.md', reason: 'empty', message: 'empty; write the task in it' },
          ],
        }),
      }),
    );
    expect(frame).toContain('waiting on dependency (1):\n  chain-b · waits for chain-a\n');
    expect(frame).toContain(
      'waiting for you (2):\n  blank · empty; write the task in it\n  cyc · a depends_on cycle: cyc → other → cyc',
    );
    // The tasks a person must fix come before the ones that wait their turn.
    expect(frame.indexOf('waiting for you')).toBeLessThan(frame.indexOf('waiting on dependency'));
  });

  test('no daemon and nothing to run', () => {
    const frame = renderFrame(
      snapshot({
        daemon: null,
        counts: { approved: 0, blocked: 0, review: 0, done: 1, rejected: 0 },
        tasks: pictured([], {
          daemon: null,
          files: { done: ['a.md'] },
          recent: [{ id: 'a', status: 'done', file: '/v/Done/a.md', iterations: 3, atMs: NOW }],
        }),
      }),
    );
    expect(frame).toBe(
      [
        'wiggum 14:00:00 · /v',
        'daemon: not running (wiggum start runs it)',
        'Approved 0 · Blocked 0 · Review 0 · Done 1 · Rejected 0',
        '',
        'done (1):',
        '  a · after 3 iterations',
        '',
      ].join('\n'),
    );
  });

  test('on a terminal each line is cut to its width, so a redraw in place never wraps', () => {
    const tasks = pictured(
      [entry({ id: 'login', phase: 'running' })],
      {},
      { login: { lastEvent: `→ Bash: ${'x'.repeat(200)}` } },
    );
    const lines = renderFrame(snapshot({ tasks }), 40).trimEnd().split('\n');
    expect(Math.max(...lines.map((line) => [...line].length))).toBe(40);
    expect(lines).toContain('      → Bash: xxxxxxxxxxxxxxxxxxxxxxxxx…');
    expect(renderFrame(snapshot({ tasks }))).toContain('x'.repeat(100));
  });

  test('frames printed one after another start with a line of the same shape', () => {
    const shape = (frame: string) => (frame.split('\n')[0] ?? '').replace(/\d+/g, '#');
    expect(shape(renderFrame(snapshot({})))).toBe(
      shape(renderFrame(snapshot({ nowMs: NOW + 3_723_000, daemon: null }))),
    );
  });

  test.each([
    [{ phase: 'running' } as const, 'running 12s'],
    [
      { phase: 'waiting', waitingFor: 'usage-limit', untilMs: NOW + 3_600_000 } as const,
      'waiting for the usage limit to reset, 1h 00m left',
    ],
    [{ phase: 'waiting', waitingFor: 'retry' } as const, 'waiting to retry'],
    [{ phase: 'held' } as const, 'held by STOP for 12s'],
    [{ phase: 'stopped' } as const, 'held: its stop flag (wiggum resume t)'],
    [{ phase: 'running', worker: { id: 'box-7-k', host: 'box', pid: 7 } } as const, 'running 12s · on worker box-7-k'],
  ])('%j: %s', (fields, expected) => {
    const [task] = pictured([entry({ id: 't', ...fields })]);
    expect(task === undefined ? null : why(task, NOW)).toBe(expected);
  });

  test.each([
    [{ inputTokens: 0, outputTokens: 0, costUsd: null }, 'no tokens yet'],
    [{ inputTokens: 1200, outputTokens: 340, costUsd: 0.0125 }, '1,540 tokens · $0.0125'],
    [{ inputTokens: 900, outputTokens: 100, costUsd: null }, '1,000 tokens'],
  ])('spent %j reads %s', (spent, expected) => {
    expect(spentText(spent)).toBe(expected);
  });

  test.each([
    [0, '0s'],
    [-5_000, '0s'],
    [59_400, '59s'],
    [65_000, '1m 05s'],
    [7_380_000, '2h 03m'],
  ])('%i ms reads %s', (ms, expected) => {
    expect(duration(ms)).toBe(expected);
  });
});
