import { describe, expect, test } from 'vitest';
import { RECENT } from '../../src/daemon/status.js';
import { StatusTracker } from '../../src/daemon/status-tracker.js';
import type { AuthorWait, DaemonStatus, TaskEntry, WorkerStatus } from '../../src/daemon/status.js';
import type { LoopEvent } from '../../src/loop/events.js';
import type { IterationRecord } from '../../src/memory/history.js';

/**
 * The daemon's picture of its tasks is a fold of what happens to them (queued, a loop's events,
 * failures, another process's lock): each row is a sequence of steps and the entry it leaves.
 */
type Step = ((tracker: StatusTracker) => void) | LoopEvent;

const FILE = '/v/Approved/a.md';
const started: LoopEvent = {
  type: 'started',
  taskId: 'a',
  file: FILE,
  iteration: 2,
  maxIterations: 10,
  resumed: true,
  durable: true,
  harness: 'claude',
  session: 's1',
};
const iteration: LoopEvent = {
  type: 'iteration',
  taskId: 'a',
  iteration: 3,
  attempt: 0,
  maxIterations: 10,
  step: 'US-002',
  startedAtMs: 1500,
};
const record = { outcome: 'continue' } as IterationRecord;
const queue = (tracker: StatusTracker): void => tracker.queued('a', 'a.md', FILE);
const outageWait = (harness?: string): LoopEvent => ({
  type: 'waiting',
  taskId: 'a',
  untilMs: 9000,
  why: 'outage',
  ...(harness === undefined ? {} : { harness }),
});
const ended = (outcome: IterationRecord['outcome']): LoopEvent => ({
  type: 'iteration-end',
  taskId: 'a',
  record: { outcome } as IterationRecord,
});
const W1 = { id: 'box-7-k', host: 'box', pid: 7 };
const onWorker = (worker: typeof W1 | null = W1): LoopEvent => ({ type: 'worker', taskId: 'a', worker });

function fold(steps: Step[]): { tracker: StatusTracker; changes: number } {
  let changes = 0;
  const tracker = new StatusTracker(
    { pid: 1, vault: '/v', startedAtMs: 0, concurrency: 2 },
    () => 1000,
    () => (changes += 1),
  );
  for (const step of steps) {
    if (typeof step === 'function') step(tracker);
    else tracker.event(step);
  }
  return { tracker, changes };
}

const entryAfter = (steps: Step[]): TaskEntry | undefined =>
  fold(steps)
    .tracker.snapshot()
    .tasks.find((task) => task.id === 'a');

describe('what the status says of a task after what happened to it', () => {
  test.each<[string, Step[], Record<string, unknown> | undefined]>([
    ['queued', [queue], { phase: 'queued', name: 'a.md', sinceMs: 1000 }],
    [
      'started: running, with its harness and the checkpoint count',
      [queue, started],
      { phase: 'running', harness: 'claude', iteration: 2, maxIterations: 10, durable: true },
    ],
    [
      'started in a worktree: where, and on which branch',
      [queue, { ...started, worktree: { path: '/v/.wiggum/worktrees/a', branch: 'ralph/a' } }],
      { phase: 'running', worktree: { path: '/v/.wiggum/worktrees/a', branch: 'ralph/a' } },
    ],
    [
      'in an iteration: the one running is said apart from the count',
      [queue, started, iteration],
      { phase: 'running', iteration: 2, current: 3, step: 'US-002', sinceMs: 1500 },
    ],
    [
      'the iteration ended: its outcome, nothing running',
      [queue, started, iteration, { type: 'iteration-end', taskId: 'a', record }],
      { lastOutcome: 'continue', current: undefined },
    ],
    [
      'checkpointed: the count moves on',
      [queue, started, { type: 'checkpoint', taskId: 'a', iteration: 3, maxIterations: 12 }],
      { iteration: 3, maxIterations: 12 },
    ],
    [
      'waiting to retry',
      [queue, started, { type: 'waiting', taskId: 'a', untilMs: 9000, why: 'retry' }],
      { phase: 'waiting', waitingFor: 'retry', untilMs: 9000 },
    ],
    [
      'held by the vault STOP: no wait reason',
      [queue, started, { type: 'waiting', taskId: 'a', untilMs: Infinity, why: 'hold' }],
      { phase: 'held', waitingFor: undefined, untilMs: undefined },
    ],
    [
      'stopped by its flag',
      [
        queue,
        started,
        { type: 'ended', taskId: 'a', result: { status: 'stopped', taskId: 'a', file: FILE, iterations: 2 } },
      ],
      { phase: 'stopped' },
    ],
    [
      'done: no longer listed',
      [
        queue,
        started,
        { type: 'ended', taskId: 'a', result: { status: 'done', taskId: 'a', file: '/v/Done/a.md', iterations: 3 } },
      ],
      undefined,
    ],
    [
      'run by a foreground wiggum run: running there, with its pid',
      [(t) => t.runningElsewhere('a', 'a.md', FILE, 4242)],
      { phase: 'running', foreground: { pid: 4242 } },
    ],
    [
      'queued again while a foreground run holds it: still running there',
      [(t) => t.runningElsewhere('a', 'a.md', FILE, 4242), queue],
      { phase: 'running', foreground: { pid: 4242 } },
    ],
    [
      'taken over from the foreground run: running here',
      [(t) => t.runningElsewhere('a', 'a.md', FILE, 4242), queue, started],
      { phase: 'running', foreground: undefined },
    ],
    [
      'failing: listed with why, and the failure kept when it is queued again',
      [(t) => t.failed('a', 'a.md', FILE, 'ENOSPC: no space left', 31_000), queue],
      { phase: 'queued', failure: { message: 'ENOSPC: no space left', retryAtMs: 31_000 } },
    ],
    ['forgotten', [queue, (t) => t.forget('a')], undefined],
    [
      'waiting on an outage: the harness it waits on and since when',
      [queue, started, outageWait('codex')],
      { phase: 'waiting', waitingFor: 'outage', untilMs: 9000, outage: { harness: 'codex', sinceMs: 1000 } },
    ],
    [
      "an outage wait that names no harness: the task's own",
      [queue, started, outageWait()],
      { outage: { harness: 'claude', sinceMs: 1000 } },
    ],
    [
      'a run that fails again during the outage keeps it said',
      [queue, started, outageWait(), iteration, ended('transient')],
      { outage: { harness: 'claude', sinceMs: 1000 }, lastOutcome: 'transient' },
    ],
    [
      'a run that gets an answer ends the outage',
      [queue, started, outageWait(), iteration, ended('continue')],
      { outage: undefined, lastOutcome: 'continue' },
    ],
    [
      'back from a wait into an iteration: no end time',
      [queue, started, { type: 'waiting', taskId: 'a', untilMs: 9000, why: 'retry' }, iteration],
      { phase: 'running', untilMs: undefined },
    ],
    [
      'stopped by its flag while queued: listed as stopped',
      [queue, (t) => t.stopped('a', 'a.md', FILE)],
      { phase: 'stopped', name: 'a.md', file: FILE },
    ],
    [
      'rejected: no longer listed',
      [
        queue,
        started,
        {
          type: 'ended',
          taskId: 'a',
          result: { status: 'rejected', taskId: 'a', file: '/v/Rejected/a.md', iterations: 3, reason: 'stuck' },
        },
      ],
      undefined,
    ],
    ['a loop event for a task not listed adds nothing', [started, iteration], undefined],
    [
      'taken up by a worker: running there, before its loop says started',
      [queue, onWorker()],
      { phase: 'running', worker: W1, sinceMs: 1000 },
    ],
    [
      'running on a worker: the worker stays through its iterations and waits',
      [queue, onWorker(), started, iteration, { type: 'waiting', taskId: 'a', untilMs: 9000, why: 'retry' }],
      { phase: 'waiting', worker: W1, iteration: 2 },
    ],
    [
      'taken up by a worker after a failure here: the failure is no longer said',
      [(t) => t.failed('a', 'a.md', FILE, 'ENOSPC', 31_000), onWorker()],
      { phase: 'running', worker: W1, failure: undefined },
    ],
    [
      'handed back by its worker: queued again, its checkpoint count kept',
      [queue, onWorker(), started, iteration, onWorker(null)],
      { phase: 'queued', worker: undefined, iteration: 2, current: undefined, sinceMs: 1000 },
    ],
    [
      'handed back while waiting: queued, no longer waiting',
      [queue, onWorker(), started, { type: 'waiting', taskId: 'a', untilMs: 9000, why: 'usage-limit' }, onWorker(null)],
      { phase: 'queued', waitingFor: undefined, untilMs: undefined },
    ],
    [
      'taken up by another worker after a stall',
      [queue, onWorker(), started, onWorker(null), onWorker({ id: 'pc-9-k', host: 'pc', pid: 9 })],
      { phase: 'running', worker: { id: 'pc-9-k', host: 'pc', pid: 9 } },
    ],
    [
      'stopped on its worker: stopped, on no worker',
      [
        queue,
        onWorker(),
        started,
        { type: 'ended', taskId: 'a', result: { status: 'stopped', taskId: 'a', file: FILE, iterations: 2 } },
      ],
      { phase: 'stopped', worker: undefined },
    ],
    [
      'stopped by its flag while on a worker',
      [queue, onWorker(), (t) => t.stopped('a', 'a.md', FILE)],
      { phase: 'stopped', worker: undefined },
    ],
    [
      'stopped, then its worker lets it go: still stopped',
      [queue, onWorker(), (t) => t.stopped('a', 'a.md', FILE), onWorker(null)],
      { phase: 'stopped' },
    ],
    ['queued again: on no worker', [queue, onWorker(), queue], { phase: 'queued', worker: undefined }],
    ['a worker for a task not listed adds nothing', [onWorker()], undefined],
  ])('%s', (_, steps, expected) => {
    const entry = entryAfter(steps);
    if (expected === undefined) expect(entry).toBeUndefined();
    else {
      // A key expected undefined must be absent or undefined; the others must match.
      const absent = Object.entries(expected).filter(([, value]) => value === undefined);
      expect(entry).toMatchObject(
        Object.fromEntries(Object.entries(expected).filter(([, value]) => value !== undefined)),
      );
      for (const [key] of absent) expect(entry?.[key as keyof TaskEntry]).toBeUndefined();
    }
  });

  test('every change is said, so status.json and the Dashboard are written again', () => {
    expect(fold([queue, started, iteration]).changes).toBe(3);
  });

  test('the files waiting for their author: a change is said, the same list again is not', () => {
    const empty: AuthorWait = { name: 'e.md', file: '/v/Approved/e.md', reason: 'empty', message: 'e.md is empty' };
    const setWaits = (waits: AuthorWait[]) => (t: StatusTracker) => (t.waitingForAuthor = [...waits]);
    expect(fold([setWaits([empty])]).changes).toBe(1);
    expect(fold([setWaits([empty]), setWaits([empty])]).changes).toBe(1);
    expect(fold([setWaits([empty]), setWaits([{ ...empty, reason: 'no-harness' }])]).changes).toBe(2);
    expect(fold([setWaits([empty]), setWaits([])]).changes).toBe(2);
    const order: AuthorWait = { ...empty, reason: { kind: 'dependencies', ids: ['a'] }, message: 'waiting for a' };
    expect(
      fold([setWaits([order]), setWaits([{ ...order, reason: { kind: 'dependencies', ids: ['a'] } }])]).changes,
    ).toBe(1);
    expect(
      fold([setWaits([order]), setWaits([{ ...order, reason: { kind: 'dependencies', ids: ['b'] } }])]).changes,
    ).toBe(2);
  });
});

describe('the recently finished list', () => {
  const ended = (id: string, status: 'done' | 'rejected'): LoopEvent => ({
    type: 'ended',
    taskId: id,
    result: {
      status,
      taskId: id,
      file: `/v/${status}/${id}.md`,
      iterations: 1,
      ...(status === 'rejected' ? { reason: 'stuck' } : {}),
    },
  });

  test('newest first, below none of the ones restored from an earlier daemon, and at most RECENT long', () => {
    const { tracker } = fold([
      (t) => t.restoreRecent([{ id: 'old', status: 'done', file: '/v/Done/old.md', iterations: 2, atMs: 1 }]),
    ]);
    for (let i = 0; i < RECENT + 5; i += 1) tracker.event(ended(`t${i}`, i % 2 === 0 ? 'done' : 'rejected'));
    const recent = tracker.snapshot().recent;
    expect(recent).toHaveLength(RECENT);
    expect(recent[0]).toMatchObject({ id: `t${RECENT + 4}`, status: 'done' });
    expect(recent.map((item) => item.id)).not.toContain('old');
  });

  test('a rejected task keeps its reason; a stopped one is not finished', () => {
    const { tracker } = fold([
      queue,
      ended('r', 'rejected'),
      { type: 'ended', taskId: 'a', result: { status: 'stopped', taskId: 'a', file: FILE, iterations: 1 } },
    ]);
    expect(tracker.snapshot().recent).toEqual([
      expect.objectContaining({ id: 'r', status: 'rejected', reason: 'stuck' }),
    ]);
  });
});

describe('the order of the list', () => {
  test('running, then waiting, held, queued, stopped; the oldest first within each', () => {
    const { tracker } = fold([]);
    const at = (id: string): [string, string, string] => [id, `${id}.md`, `/v/Approved/${id}.md`];
    tracker.queued(...at('q'));
    tracker.queued(...at('s'));
    tracker.stopped(...at('s'));
    tracker.queued(...at('r'));
    tracker.event({ ...started, taskId: 'r' });
    tracker.queued(...at('w'));
    tracker.event({ type: 'waiting', taskId: 'w', untilMs: 5000, why: 'usage-limit' });
    expect(tracker.snapshot().tasks.map((task) => task.id)).toEqual(['r', 'w', 'q', 's']);
  });
});

describe('the workers', () => {
  const worker = (id: string, change: Partial<WorkerStatus> = {}): WorkerStatus => ({
    id,
    host: 'box',
    pid: 7,
    health: 'ok',
    concurrency: 2,
    running: [],
    seenAtMs: 900,
    startedAtMs: 100,
    harnesses: null,
    ...change,
  });

  test('not in queue mode: status.json has no workers key', () => {
    const snapshot = fold([]).tracker.snapshot();
    expect('workers' in snapshot).toBe(false);
    expect(JSON.parse(JSON.stringify(snapshot))).not.toHaveProperty('workers');
    expect(fold([(t) => t.setWorkers([worker('a')]), (t) => t.setWorkers(null)]).tracker.snapshot()).not.toHaveProperty(
      'workers',
    );
  });

  test('in queue mode: every worker by its id, as JSON says it; no worker: an empty object', () => {
    const late = worker('pc-9-k', { host: 'pc', pid: 9, health: 'late', running: ['a'], harnesses: ['claude'] });
    const { tracker, changes } = fold([(t) => t.setWorkers([worker('box-7-k'), late])]);
    expect(changes).toBe(1);
    const written = JSON.parse(JSON.stringify(tracker.snapshot())) as DaemonStatus;
    expect(written.workers).toEqual({
      'box-7-k': worker('box-7-k'),
      'pc-9-k': late,
    });
    expect(fold([(t) => t.setWorkers([])]).tracker.snapshot().workers).toEqual({});
  });

  test("the snapshot is the tracker's own copy: changing what was given or what was read changes nothing", () => {
    const given = [worker('a', { running: ['t1'] })];
    const { tracker } = fold([(t) => t.setWorkers(given)]);
    given[0]?.running.push('t2');
    given.push(worker('b'));
    const first = tracker.snapshot();
    first.workers?.a?.running.push('t3');
    expect(tracker.snapshot().workers).toEqual({ a: worker('a', { running: ['t1'] }) });
  });
});
