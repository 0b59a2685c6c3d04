import { describe, expect, test } from 'vitest';
import { RECENT, StatusTracker } from '../../src/daemon/status.js';
import type { AuthorWait, TaskEntry } from '../../src/daemon/status.js';
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
