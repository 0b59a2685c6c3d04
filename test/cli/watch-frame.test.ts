import { describe, expect, test } from 'vitest';
import type { TaskEntry } from '../../src/daemon/status.js';
import { duration, renderFrame, spentText, why } from '../../src/cli/watch-frame.js';
import type { WatchSnapshot, WatchedTask } from '../../src/cli/watch-frame.js';

const NOW = Date.parse('2026-11-25T14:00:00Z');

const entry = (fields: Partial<TaskEntry> & Pick<TaskEntry, 'id' | 'phase'>): TaskEntry => ({
  name: `${fields.id}.md`,
  file: `/v/Approved/${fields.id}.md`,
  sinceMs: NOW - 12_000,
  ...fields,
});
const watched = (fields: Partial<WatchedTask> & Pick<WatchedTask, 'entry'>): WatchedTask => ({
  stopFlag: null,
  spent: null,
  lastEvent: null,
  ...fields,
});

const snapshot = (fields: Partial<WatchSnapshot>): WatchSnapshot => ({
  vault: '/v',
  nowMs: NOW,
  daemon: { pid: 42, lifecycle: 'running', startedAtMs: NOW - 65_000, concurrency: 4 },
  counts: { approved: 3, done: 1, rejected: 0 },
  held: false,
  tasks: [],
  waitingForAuthor: [],
  recent: [],
  ...fields,
});

describe('a frame of status --watch', () => {
  test("a running task: its iteration count, story, elapsed time, tokens and cost so far, its agent's last event", () => {
    const frame = renderFrame(
      snapshot({
        tasks: [
          watched({
            entry: entry({
              id: 'login',
              phase: 'running',
              iteration: 2,
              maxIterations: 8,
              current: 3,
              step: 'US-002',
              harness: 'claude',
              taskStartedMs: NOW - 125_000,
            }),
            spent: { inputTokens: 2400, outputTokens: 680, costUsd: 0.025 },
            lastEvent: '→ Bash: npm test',
          }),
        ],
      }),
    );
    expect(frame).toBe(
      [
        'wiggum 14:00:00 · /v',
        'daemon: running, pid 42, up 1m 05s, 4 at a time',
        'Approved 3 · Done 1 · Rejected 0',
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
        tasks: [
          watched({ entry: entry({ id: 'flaky', phase: 'waiting', waitingFor: 'retry', untilMs: NOW + 3_000 }) }),
          watched({ entry: entry({ id: 'paused', phase: 'stopped' }), stopFlag: 'paused.stop' }),
          watched({ entry: entry({ id: 'next', phase: 'queued' }) }),
          watched({ entry: entry({ id: 'old', phase: 'stopped', iteration: 4, lastOutcome: 'stopped' }) }),
        ],
      }),
    );
    expect(frame).toContain('STOP exists: nothing new starts');
    expect(frame).toContain(
      'waiting and held (2):\n  flaky · waiting to retry, 3s left\n  paused · held: its stop flag paused.stop (wiggum resume paused)\n',
    );
    expect(frame).toContain('queued (1):\n  next · queued 12s\n');
    expect(frame).toContain('stopped (1):\n  old · iterations 4 done · stopped\n');
    expect(frame).not.toContain('running (');
  });

  test('tasks the order of work holds wait their turn; the ones only a person can fix wait for you', () => {
    const frame = renderFrame(
      snapshot({
        waitingForAuthor: [
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
    );
    expect(frame).toContain('waiting their turn (1):\n  chain-b.md: waits for chain-a\n');
    expect(frame).toContain(
      'waiting for you (2):\n  cyc.md: a depends_on cycle: cyc → other → cyc\n  blank.md: empty; write the task in it',
    );
  });

  test('no daemon and nothing to run', () => {
    const frame = renderFrame(
      snapshot({
        daemon: null,
        counts: { approved: 0, done: 2, rejected: 1 },
        recent: [{ id: 'a', status: 'done', file: '/v/Done/a.md', iterations: 3, atMs: NOW }],
      }),
    );
    expect(frame).toBe(
      [
        'wiggum 14:00:00 · /v',
        'daemon: not running (wiggum start runs it)',
        'Approved 0 · Done 2 · Rejected 1',
        '',
        'recently finished:',
        '  done      a  after 3 iterations',
        '',
        'nothing running',
        '',
      ].join('\n'),
    );
  });

  test('on a terminal each line is cut to its width, so a redraw in place never wraps', () => {
    const tasks = [
      watched({ entry: entry({ id: 'login', phase: 'running' }), lastEvent: `→ Bash: ${'x'.repeat(200)}` }),
    ];
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
    [{ phase: 'running' } as const, null, 'running 12s'],
    [
      { phase: 'waiting', waitingFor: 'usage-limit', untilMs: NOW + 3_600_000 } as const,
      null,
      'waiting for the usage limit to reset, 1h 00m left',
    ],
    [{ phase: 'waiting', waitingFor: 'retry' } as const, null, 'waiting to retry'],
    [{ phase: 'held' } as const, null, 'held by STOP for 12s'],
    [{ phase: 'held' } as const, 't.stop', 'held: its stop flag t.stop (wiggum resume t)'],
    [{ phase: 'stopped' } as const, null, 'stopped'],
    [
      { phase: 'running', worker: { id: 'box-7-k', host: 'box', pid: 7 } } as const,
      null,
      'running 12s · on worker box-7-k',
    ],
  ])('%j with flag %s: %s', (fields, flag, expected) => {
    expect(why(watched({ entry: entry({ id: 't', ...fields }), stopFlag: flag }), NOW)).toBe(expected);
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
