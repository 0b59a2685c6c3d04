import { describe, expect, test } from 'vitest';
import { renderDashboard } from '../../src/daemon/dashboard.js';
import type { FinishedEntry, TaskEntry, WorkerStatus } from '../../src/daemon/status.js';
import type { VaultView } from '../../src/daemon/view.js';
import { viewOfEntries } from '../helpers/picture-view.js';
import type { PictureSetup } from '../helpers/picture-view.js';

const FOLDERS = { approved: 'Approved', done: 'Done', rejected: 'Rejected', review: 'Review' };
/** Local wall-clock moments, so the expected times hold in any time zone. */
const at = (d: number, h: number, mi: number, s = 0): number => new Date(2026, 10, d, h, mi, s).getTime();
const NOW = at(25, 14, 20, 0);

const DAEMON = {
  version: 1 as const,
  pid: 42,
  vault: '/v',
  startedAtMs: at(25, 9, 0),
  updatedAtMs: NOW,
  lifecycle: 'running' as const,
  held: false,
  concurrency: 2,
};

function view(tasks: TaskEntry[], recent: FinishedEntry[] = [], setup: PictureSetup = {}): VaultView {
  const ended = (status: string): string[] =>
    recent.filter((entry) => entry.status === status).map((entry) => entry.file.slice(entry.file.lastIndexOf('/') + 1));
  return viewOfEntries(tasks, {
    daemon: DAEMON,
    recent,
    nowMs: NOW,
    ...setup,
    files: { done: ended('done'), rejected: ended('rejected'), ...setup.files },
  });
}

/** A task between its 1st and 2nd iteration; `running` adds the 2nd as the one running now. */
const task = (change: Partial<TaskEntry>, running = false): TaskEntry => ({
  id: 't',
  name: 't.md',
  file: '/v/Approved/t.md',
  phase: 'running',
  iteration: 1,
  maxIterations: 5,
  ...(running ? { current: 2 } : {}),
  step: 'S-2',
  sinceMs: at(25, 14, 19, 44),
  lastOutcome: 'continue',
  ...change,
});

/** The checks install.sh makes of a task's line: a time of day, and no relative time such as "16s" or "3m ago". */
const RELATIVE = /(^|[\s|(])\d+(\.\d+)?\s?(s|m|h|min|sec)( ago)?([\s|),.]|$)/;

describe('Dashboard.md says absolute times only', () => {
  test.each<[string, TaskEntry, string]>([
    [
      'running: since when',
      task({}, true),
      '| [[Approved/t]] | 1 of 5 done, the 2nd running | S-2 | running | 14:19:44 | continue |',
    ],
    [
      'waiting to retry: until when',
      task({ phase: 'waiting', waitingFor: 'retry', untilMs: at(25, 14, 20, 30), sinceMs: at(25, 14, 20, 0) }),
      '| [[Approved/t]] | 1 of 5 done | S-2 | retrying (at 14:20:30) | 14:20:00 | continue |',
    ],
    [
      'waiting for a usage limit that resets tomorrow',
      task({ phase: 'waiting', waitingFor: 'usage-limit', untilMs: at(26, 3, 0), sinceMs: at(25, 14, 0) }),
      '| [[Approved/t]] | 1 of 5 done | S-2 | usage limit (resets at 2026-11-26 03:00) | 14:00:00 | continue |',
    ],
    [
      'running since yesterday',
      task({ sinceMs: at(24, 23, 58) }, true),
      '| [[Approved/t]] | 1 of 5 done, the 2nd running | S-2 | running | 2026-11-24 23:58 | continue |',
    ],
  ])('%s', (_name, entry, row) => {
    const page = renderDashboard(view([entry]), FOLDERS, NOW);
    const line = page.split('\n').find((text) => text.startsWith('| [[Approved/t]]'));
    expect(line).toBe(row);
    expect(line).toMatch(/\b\d{1,2}:\d{2}\b/);
    expect(line).not.toMatch(RELATIVE);
  });

  test('the header says when, with its offset from UTC, that times are local, and when the daemon started', () => {
    const header = renderDashboard(view([]), FOLDERS, NOW).split('\n')[2] ?? '';
    expect(header).toMatch(
      /^_Updated 2026-11-25 14:20:00 UTC[+-]\d\d:\d\d by the daemon \(pid 42, running, started at 09:00:00, 2 at a time\)\. Times are local\./,
    );
  });

  test('done and rejected: when each ended, newest first, each under its state', () => {
    const page = renderDashboard(
      view(
        [],
        [
          { id: 'a', status: 'done', file: '/v/Done/a.md', iterations: 3, atMs: at(25, 14, 11, 28) },
          {
            id: 'r',
            status: 'rejected',
            file: '/v/Rejected/r.md',
            iterations: 1,
            reason: 'E_HARNESS_FATAL: permission denied',
            atMs: at(24, 8, 1),
          },
        ],
      ),
      FOLDERS,
      NOW,
    );
    expect(page).toContain('## Done (1)\n\n_complete, in Done/._\n\n- [[Done/a]] after 3 iterations, at 14:11:28\n');
    expect(page).toContain(
      '## Rejected (1)\n\n_failed, in Rejected/ with a report (wiggum retry ID sends it back)._\n\n- [[Rejected/r]] after 1 iteration: E_HARNESS_FATAL: permission denied, at 2026-11-24 08:01\n',
    );
  });

  test('blocked: each task in Blocked/ with its question, and how to answer it', () => {
    const page = renderDashboard(
      view([], [], {
        files: { blocked: ['db.md', 'bare.md'] },
        questions: new Map([
          ['db.md', 'Postgres or SQLite?'],
          ['bare.md', ''],
        ]),
      }),
      { ...FOLDERS, blocked: 'Asked' },
      NOW,
    );
    expect(page).toContain('## Blocked (2)\n\n_its agent asked a question: answer under ## Answer');
    expect(page).toContain('- [[Asked/bare]]: (no question in the file)\n- [[Asked/db]]: Postgres or SQLite?\n');
    expect(renderDashboard(view([]), FOLDERS, NOW)).not.toContain('## Blocked');
  });
});

describe('Dashboard.md in queue mode: which worker runs each task, and how each worker is', () => {
  const worker = (id: string, change: Partial<WorkerStatus> = {}): WorkerStatus => ({
    id,
    host: 'box',
    pid: 7,
    health: 'ok',
    concurrency: 2,
    running: [],
    seenAtMs: at(25, 14, 19, 58),
    startedAtMs: at(25, 9, 0),
    harnesses: null,
    ...change,
  });
  const queueView = (tasks: TaskEntry[], workers: WorkerStatus[]): VaultView => ({
    ...view(tasks),
    workers: Object.fromEntries(workers.map((w) => [w.id, w])),
  });
  const W = { id: 'box-7-k', host: 'box', pid: 7 };

  test("a running task's row names its worker; one no worker holds says so", () => {
    const page = renderDashboard(
      queueView(
        [
          task({ worker: W }, true),
          task({ id: 'u', name: 'u.md', phase: 'waiting', waitingFor: 'retry', untilMs: at(25, 14, 20, 30) }),
        ],
        [worker('box-7-k', { running: ['t'] })],
      ),
      FOLDERS,
      NOW,
    );
    expect(page).toContain(
      [
        '| task | worker | iteration | step | state | since | last outcome |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        '| [[Approved/t]] | box-7-k | 1 of 5 done, the 2nd running | S-2 | running | 14:19:44 | continue |',
      ].join('\n'),
    );
    expect(page).toContain(
      [
        '| task | worker | iteration | step | state | since | last outcome |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        '| [[Approved/u]] | — | 1 of 5 done | S-2 | retrying (at 14:20:30) | 14:19:44 | continue |',
      ].join('\n'),
    );
  });

  test('## Workers: one line per worker in id order, its health and when it was last seen (a time of day)', () => {
    const page = renderDashboard(
      queueView(
        [],
        [
          worker('pc-9-k', { host: 'pc', pid: 9, health: 'late', seenAtMs: at(25, 14, 19, 40) }),
          worker('box-7-k', { running: ['t', 'u'] }),
          worker('old-1-k', { host: 'old', pid: 1, health: 'gone', seenAtMs: at(24, 23, 0) }),
        ],
      ),
      FOLDERS,
      NOW,
    );
    const section = page.slice(page.indexOf('## Workers'));
    expect(section).toBe(
      [
        '## Workers',
        '',
        '- 🟢 `box-7-k` (box, pid 7): ok, 2 of 2 (runs t, u), last seen at 14:19:58',
        '- 🔴 `old-1-k` (old, pid 1): gone, 0 of 2 (idle), last seen at 2026-11-24 23:00',
        '- 🟡 `pc-9-k` (pc, pid 9): late, 0 of 2 (idle), last seen at 14:19:40',
        '',
      ].join('\n'),
    );
    for (const line of section.split('\n').filter((text) => text.startsWith('- '))) expect(line).not.toMatch(RELATIVE);
  });

  test('no worker connected: says how to start one', () => {
    expect(renderDashboard(queueView([], []), FOLDERS, NOW)).toContain(
      '## Workers\n\nNo worker is connected: start one with `wiggum worker --queue redis://HOST:PORT`.\n',
    );
  });

  test('without a queue: no worker column, no Workers section', () => {
    const page = renderDashboard(view([task({}, true)]), FOLDERS, NOW);
    expect(page).toContain('| task | iteration | step | state | since | last outcome |');
    expect(page).not.toContain('worker');
  });
});
