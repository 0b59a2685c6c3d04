import { describe, expect, test } from 'vitest';
import type { TaskEntry } from '../../src/daemon/status.js';
import type { VaultView } from '../../src/daemon/view.js';
import { withForegroundRuns } from '../../src/daemon/view.js';
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
const view = (tasks: TaskEntry[], daemon: VaultView['daemon'] = null): VaultView => ({
  counts: { approved: tasks.length, done: 0, rejected: 0 },
  daemon,
  held: false,
  tasks,
  waitingForAuthor: [],
  recent: [],
  updatedAtMs: NOW,
});
const render = (v: VaultView, all = false): string => renderStatus(v, layout, NOW, { all, configProblem: null });

describe('wiggum status says what each task does, or why not', () => {
  test.each<[string, TaskEntry, string]>([
    ['running in the daemon', entry('a', { phase: 'running' }), 'running:\n  a  running 5s'],
    [
      'running in a foreground run',
      entry('a', { phase: 'running', foreground: { pid: 77 } }),
      'running:\n  a  running in a foreground wiggum run (pid 77)',
    ],
    [
      'failing, tried again',
      entry('a', { failure: { message: 'ENOSPC: no space left on device', retryAtMs: NOW + 30_000 } }),
      'failing, tried again:\n  a  the last attempt failed: ENOSPC: no space left on device; tried again in 30s',
    ],
    [
      'held by its stop flag',
      entry('a', { phase: 'stopped' }),
      'stopped:\n  a  held by its stop flag (wiggum resume a continues it)',
    ],
    ['held by the vault STOP', entry('a', { phase: 'held' }), 'running:\n  a  held by the vault STOP'],
    [
      'waiting on a reason this wiggum does not name',
      entry('a', { phase: 'waiting', waitingFor: 'outage' as NonNullable<TaskEntry['waitingFor']> }),
      'running:\n  a  waiting (outage)',
    ],
    ['queued', entry('a'), 'queued:\n  a\n'],
    [
      'running in its worktree, on its branch',
      entry('a', { phase: 'running', worktree: { path: '/v/.wiggum/worktrees/a', branch: 'ralph/a' } }),
      'running:\n  a  running 5s  on ralph/a in /v/.wiggum/worktrees/a',
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
    const seen = withForegroundRuns(
      view([entry('a'), entry('b')], { pid: 42, lifecycle: 'running', startedAtMs: NOW, concurrency: 1 }),
      runs,
      '/v/Approved',
    );
    expect(seen.tasks.map((t) => [t.id, t.phase, t.foreground?.pid])).toEqual([
      ['gone', 'running', 11],
      ['a', 'running', 10],
      ['b', 'queued', undefined],
    ]);
  });
});
