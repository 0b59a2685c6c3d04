import { describe, expect, test } from 'vitest';
import type { TaskEntry, WorkerStatus } from '../../src/daemon/status.js';
import type { VaultView } from '../../src/daemon/view.js';
import { withForegroundRuns } from '../../src/daemon/view.js';
import { viewOfEntries } from '../helpers/picture-view.js';
import { renderStatus } from '../../src/cli/status-text.js';
import { vaultLayout } from '../../src/vault/layout.js';

const NOW = 1_800_000_000_000;
const layout = vaultLayout('/v', {
  folders: { approved: 'Approved', done: 'Done', rejected: 'Rejected', review: 'Review' },
  dashboard: 'Dashboard.md',
});
const entry = (id: string, change: Partial<TaskEntry> = {}): TaskEntry => ({
  id,
  name: `${id}.md`,
  file: `/v/Approved/${id}.md`,
  phase: 'queued',
  sinceMs: NOW - 5000,
  ...change,
});
const DAEMON = {
  version: 1 as const,
  pid: 42,
  vault: '/v',
  startedAtMs: NOW,
  updatedAtMs: NOW,
  lifecycle: 'running' as const,
  held: false,
  concurrency: 4,
};
const view = (tasks: TaskEntry[]): VaultView => viewOfEntries(tasks, { daemon: DAEMON, nowMs: NOW });
const render = (v: VaultView, all = false): string => renderStatus(v, layout, NOW, { all, configProblem: null });

describe('wiggum status says what each task does, or why not', () => {
  test.each<[string, TaskEntry, string]>([
    [
      'running in the daemon',
      entry('a', { phase: 'running' }),
      'running (1): an iteration is at work\n  a  running 5s',
    ],
    [
      'running in a foreground run',
      entry('a', { phase: 'running', foreground: { pid: 77 } }),
      'running (1): an iteration is at work\n  a  running in a foreground wiggum run (pid 77)',
    ],
    [
      'failing, tried again',
      entry('a', { failure: { message: 'ENOSPC: no space left on device', retryAtMs: NOW + 30_000 } }),
      'failing (1): the daemon could not start it: tried again\n  a  the last attempt failed: ENOSPC: no space left on device; tried again in 30s',
    ],
    [
      'held by its stop flag',
      entry('a', { phase: 'stopped' }),
      'stopped (1): held by its stop flag: remove the .stop file (or wiggum resume ID) to continue from the checkpoint\n  a  held by its stop flag (wiggum resume a continues it)',
    ],
    [
      'held by the vault STOP',
      entry('a', { phase: 'held' }),
      'held (1): the vault STOP file holds it: it goes on once STOP is removed\n  a\n',
    ],
    [
      'waiting on an outage',
      entry('a', { phase: 'waiting', waitingFor: 'outage', outage: { harness: 'claude', sinceMs: NOW - 60_000 } }),
      'outage (1): its harness does not answer: paused, probing it again\n  a  waiting on harness claude (outage for 1m00s): paused',
    ],
    ['queued', entry('a'), 'queued (1): waits for a free slot\n  a\n'],
    [
      'running on a worker',
      entry('a', { phase: 'running', worker: { id: 'box-7-k', host: 'box', pid: 7 } }),
      '  a  running 5s  on worker box-7-k',
    ],
    [
      'waiting on a worker',
      entry('a', {
        phase: 'waiting',
        waitingFor: 'retry',
        untilMs: NOW + 10_000,
        worker: { id: 'box-7-k', host: 'box', pid: 7 },
      }),
      'retrying (1): a failed iteration is tried again after a pause\n  a  waiting to retry (in 10s)  on worker box-7-k',
    ],
    [
      'running in its worktree, on its branch',
      entry('a', { phase: 'running', worktree: { path: '/v/.wiggum/worktrees/a', branch: 'ralph/a' } }),
      '  a  running 5s  on ralph/a in /v/.wiggum/worktrees/a',
    ],
  ])('%s', (_name, task, expected) => {
    expect(render(view([task]))).toContain(expected);
  });

  test('a long group shows its first lines and the count; --all shows every task', () => {
    const many = Array.from({ length: 300 }, (_, i) => entry(`m${i + 1}`));
    const short = render(view(many));
    expect(short.split('\n').length).toBeLessThan(25);
    expect(short).toContain('  … and 290 more queued (300 in all; wiggum status --all lists them)');
    expect(render(view(many), true).match(/^ {2}m\d+$/gm)).toHaveLength(300);
  });

  test("a task locked by another process is listed as running there, a daemon's own lock is not", () => {
    const runs = new Map([
      ['a', 10],
      ['b', 42],
      ['gone', 11],
    ]);
    const seen = withForegroundRuns({ pid: 42, tasks: [entry('a'), entry('b')], recent: [] }, runs, '/v/Approved');
    expect(seen.tasks.map((t) => [t.id, t.phase, t.foreground?.pid])).toEqual([
      ['gone', 'running', 11],
      ['a', 'running', 10],
      ['b', 'queued', undefined],
    ]);
  });
});

describe('wiggum status lists the workers (queue mode)', () => {
  const worker = (id: string, change: Partial<WorkerStatus> = {}): WorkerStatus => ({
    id,
    host: 'box',
    pid: 7,
    health: 'ok',
    concurrency: 2,
    running: [],
    seenAtMs: NOW - 3_000,
    startedAtMs: NOW - 60_000,
    harnesses: null,
    ...change,
  });
  const withWorkers = (workers: WorkerStatus[]): VaultView =>
    viewOfEntries([], {
      daemon: { ...DAEMON, workers: Object.fromEntries(workers.map((w) => [w.id, w])) },
      nowMs: NOW,
    });

  test('each worker in id order: its health, what it runs of what it may, when it was last seen', () => {
    const text = render(
      withWorkers([
        worker('pc-9-k', { health: 'late', running: ['a', 'b'], concurrency: 4, seenAtMs: NOW - 12_000 }),
        worker('box-7-k', { running: ['c'], harnesses: ['claude', 'codex'] }),
        worker('old-1-k', { health: 'gone', seenAtMs: NOW - 95_000 }),
      ]),
    );
    expect(text).toContain(
      [
        'workers:',
        '  box-7-k  ok  running 1 of 2  seen 3s ago  (harnesses claude, codex)',
        '  old-1-k  gone  running 0 of 2  seen 1m35s ago',
        '  pc-9-k  late  running 2 of 4  seen 12s ago',
      ].join('\n'),
    );
  });

  test('in queue mode with no worker: says how to start one', () => {
    expect(render(withWorkers([]))).toContain(
      'workers:\n  none connected: start one with wiggum worker --queue redis://HOST:PORT\n',
    );
  });

  test('without a queue: no workers block', () => {
    expect(render(view([entry('a', { phase: 'running' })]))).not.toContain('workers');
  });

  test('status --json keeps the workers of status.json, and says nothing of them without a queue', () => {
    const workers = { 'box-7-k': worker('box-7-k') };
    expect(viewOfEntries([], { daemon: { ...DAEMON, workers } }).workers).toEqual(workers);
    expect(viewOfEntries([], { daemon: DAEMON })).not.toHaveProperty('workers');
  });
});
