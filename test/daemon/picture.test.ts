import { describe, expect, test } from 'vitest';
import { stateOfEntry, stateOfWait } from '../../src/daemon/picture.js';
import type { FileReading } from '../../src/daemon/picture.js';
import type { AuthorWait, TaskEntry } from '../../src/daemon/status.js';
import { STATE_TABLE } from '../../src/task/states.js';
import type { TaskStateName } from '../../src/task/states.js';
import { viewOfEntries } from '../helpers/picture-view.js';

const entry = (id: string, change: Partial<TaskEntry> = {}): TaskEntry => ({
  id,
  name: `${id}.md`,
  file: `/v/Approved/${id}.md`,
  phase: 'queued',
  sinceMs: 1_000,
  ...change,
});
const DAEMON = {
  version: 1 as const,
  pid: 42,
  vault: '/v',
  startedAtMs: 0,
  updatedAtMs: 0,
  lifecycle: 'running' as const,
  held: false,
  concurrency: 2,
};
const read = (id: string, iterations: number, status?: string): FileReading => ({
  kind: 'read',
  id,
  status,
  iterations,
  maxIterations: 8,
});

describe('the state of a task the daemon holds', () => {
  test.each<[string, Partial<TaskEntry>, TaskStateName]>([
    ['queued', {}, 'queued'],
    ['queued after a failed start', { failure: { message: 'ENOSPC', retryAtMs: 2 } }, 'failing'],
    ['running', { phase: 'running' }, 'running'],
    ['run by a foreground wiggum run', { phase: 'queued', foreground: { pid: 7 } }, 'running'],
    ['probing its harness in an outage', { phase: 'running', outage: { harness: 'c', sinceMs: 1 } }, 'outage'],
    ['waiting to retry', { phase: 'waiting', waitingFor: 'retry' }, 'retrying'],
    ['waiting for a usage limit', { phase: 'waiting', waitingFor: 'usage-limit' }, 'usage-limit'],
    ['waiting to land', { phase: 'waiting', waitingFor: 'landing' }, 'landing'],
    ['held by STOP', { phase: 'held' }, 'held'],
    ['held for a review slot', { phase: 'review-slot' }, 'review-slot'],
    ['stopped by its flag', { phase: 'stopped' }, 'stopped'],
  ])('%s → %s', (_name, change, state) => {
    expect(stateOfEntry(entry('t', change))).toBe(state);
  });
});

describe('the state of a file that waits in Approved/', () => {
  test.each<[string, AuthorWait['reason'], TaskStateName]>([
    ['no harness named', 'no-harness', 'needs-harness'],
    ['being written', 'being-written', 'being-written'],
    ['empty', 'empty', 'waiting-for-you'],
    ['a question unanswered', 'unanswered', 'waiting-for-you'],
    ['a symbolic link', 'symlink', 'waiting-for-you'],
    ['back from review with no request', 'no-change-request', 'waiting-for-you'],
    ['a dependency still to run', { kind: 'dependencies', ids: ['a'] }, 'waiting-on-dependency'],
    ['a not_before time', { kind: 'not-before', atMs: 5 }, 'scheduled'],
    ['a rejected dependency', { kind: 'dependency-rejected', ids: ['a'] }, 'waiting-for-you'],
    ['a dependency cycle', { kind: 'dependency-cycle', ids: ['a', 'b'] }, 'waiting-for-you'],
  ])('%s → %s', (_name, reason, state) => {
    expect(stateOfWait({ reason })).toBe(state);
  });
});

describe('one picture of every task', () => {
  test('the folder decides first: a task in Review/ is in review (never done), a rejected one never queued', () => {
    const view = viewOfEntries([entry('bad')], {
      daemon: DAEMON,
      files: { review: ['rev.md'], rejected: ['bad.md'], done: ['ok.md'], blocked: ['ask.md'] },
      recent: [{ id: 'rev', status: 'done', file: '/v/Review/rev.md', iterations: 2, atMs: 5 }],
    });
    const states = Object.fromEntries(view.tasks.map((task) => [task.id, task.state]));
    // `bad` is still in the daemon's list, but its file is in Rejected/: the folder wins.
    expect(states).toEqual({ ask: 'blocked', rev: 'in-review', bad: 'rejected', ok: 'done' });
    expect(view.states.done).toBe(1);
    expect(view.states['in-review']).toBe(1);
    expect(view.counts).toEqual({ approved: 1, blocked: 1, review: 1, done: 1, rejected: 1 });
  });

  test('every task is counted once, the counts per state add up to the task files', () => {
    const view = viewOfEntries([entry('r', { phase: 'running' }), entry('q')], {
      daemon: DAEMON,
      files: { approved: ['stopped.md', 'new.md'], done: ['d1.md', 'd2.md'] },
      stopFlags: ['stopped'],
    });
    const total = Object.values(view.states).reduce((a, b) => a + b, 0);
    expect(total).toBe(Object.values(view.counts).reduce((a, b) => a + b, 0));
    expect(view.tasks.map((task) => [task.id, task.state])).toEqual([
      ['r', 'running'],
      ['new', 'queued'],
      ['q', 'queued'],
      ['stopped', 'stopped'],
      ['d1', 'done'],
      ['d2', 'done'],
    ]);
  });

  test('a stopped task is found from its flag or its checkpoint, with or without a daemon, after a restart', () => {
    const flagged = viewOfEntries([], { daemon: DAEMON, files: { approved: ['s.md'] }, stopFlags: ['s'] });
    expect(flagged.tasks[0]?.state).toBe('stopped');
    const readings = new Map([['/v/Approved/s.md', read('s', 2, 'stopped')]]);
    const noDaemon = viewOfEntries([], { files: { approved: ['s.md'] }, readings });
    expect(noDaemon.tasks[0]).toMatchObject({ state: 'stopped', iterations: 2 });
  });

  test('without a daemon, a run cut short is interrupted; with one, it is queued to resume', () => {
    const readings = new Map([['/v/Approved/i.md', read('i', 3, 'running')]]);
    expect(viewOfEntries([], { files: { approved: ['i.md'] }, readings }).tasks[0]?.state).toBe('interrupted');
    expect(viewOfEntries([], { daemon: DAEMON, files: { approved: ['i.md'] }, readings }).tasks[0]?.state).toBe(
      'queued',
    );
  });

  test.each<[string, string | undefined, string | null | undefined, TaskStateName]>([
    ['names no harness, no default', undefined, null, 'needs-harness'],
    ['names its harness, no default', 'claude', null, 'queued'],
    ['names no harness, a default', undefined, 'claude', 'queued'],
    ['names no harness, the config unknown', undefined, undefined, 'queued'],
  ])('without a daemon, a task that %s is %s', (_name, harness, defaultHarness, state) => {
    const readings = new Map<string, FileReading>([
      [
        '/v/Approved/h.md',
        { kind: 'read', id: 'h', status: undefined, iterations: 0, ...(harness === undefined ? {} : { harness }) },
      ],
    ]);
    const view = viewOfEntries([], {
      files: { approved: ['h.md'] },
      readings,
      ...(defaultHarness === undefined ? {} : { defaultHarness }),
    });
    expect(view.tasks[0]?.state).toBe(state);
    if (state === 'needs-harness') expect(view.tasks[0]?.why).toMatch(/^names no harness/);
  });

  test('a file that does not parse is listed as invalid, with no iteration done', () => {
    const readings = new Map<string, FileReading>([['/v/Approved/x.md', { kind: 'unparsable' }]]);
    expect(viewOfEntries([], { files: { approved: ['x.md'] }, readings }).tasks[0]).toMatchObject({
      state: 'invalid',
      iterations: 0,
    });
  });

  test("the iteration count is the checkpoint's (iterations finished), the daemon's or the file's", () => {
    const view = viewOfEntries([entry('r', { phase: 'running', iteration: 1, current: 2, maxIterations: 8 })], {
      daemon: DAEMON,
      files: { review: ['rev.md'] },
      readings: new Map([['/v/Review/rev.md', read('rev', 2, 'review')]]),
    });
    expect(view.tasks.map((task) => [task.id, task.iterations])).toEqual([
      ['rev', 2],
      ['r', 1],
    ]);
  });

  test('tasks that wait on a person come first, then the others, by the table', () => {
    const view = viewOfEntries([entry('run', { phase: 'running' }), entry('q')], {
      daemon: DAEMON,
      waits: [
        { name: 'nh.md', file: '/v/Approved/nh.md', reason: 'no-harness', message: 'names no harness' },
        { name: 'dep.md', file: '/v/Approved/dep.md', reason: { kind: 'dependencies', ids: ['q'] }, message: 'w' },
      ],
      files: { blocked: ['ask.md'], review: ['rev.md'], done: ['d.md'] },
    });
    const order = view.tasks.map((task) => task.id);
    expect(order).toEqual(['ask', 'rev', 'nh', 'run', 'q', 'dep', 'd']);
    const people = view.tasks.filter((task) => STATE_TABLE[task.state].waitsOnPerson).map((task) => task.id);
    expect(order.slice(0, people.length)).toEqual(people);
  });

  test('one task in two folders (a move between its link and its unlink) is where it went', () => {
    const view = viewOfEntries([entry('m', { phase: 'running' })], { daemon: DAEMON, files: { done: ['m.md'] } });
    expect(view.tasks.map((task) => [task.id, task.state])).toEqual([['m', 'done']]);
  });

  test('an ended task: when and why, from the daemon recent list of its folder', () => {
    const view = viewOfEntries([], {
      files: { rejected: ['r.md'], done: ['old.md'] },
      recent: [{ id: 'r', status: 'rejected', file: '/v/Rejected/r.md', iterations: 1, reason: 'E_X', atMs: 9 }],
    });
    expect(view.tasks).toEqual([
      expect.objectContaining({ id: 'old', state: 'done' }),
      expect.objectContaining({ id: 'r', state: 'rejected', iterations: 1, reason: 'E_X', endedAtMs: 9 }),
    ]);
    expect(view.tasks[0]).not.toHaveProperty('iterations');
  });
});

describe('a task whose id is not its file name', () => {
  test("the daemon's id (read from its `id:`) is the one every view gives it", () => {
    const view = viewOfEntries(
      [{ id: 'real-id', name: 'Some Note.md', file: '/v/Approved/Some Note.md', phase: 'running', sinceMs: 1 }],
      {
        daemon: {
          version: 1,
          pid: 42,
          vault: '/v',
          startedAtMs: 0,
          updatedAtMs: 0,
          lifecycle: 'running',
          held: false,
          concurrency: 1,
        },
      },
    );
    expect(view.tasks.map((task) => [task.id, task.name, task.state])).toEqual([
      ['real-id', 'Some Note.md', 'running'],
    ]);
  });
});

describe('a task a worker runs (scale-out)', () => {
  test('names its worker beside its state, where a reader of status --json looks for it', () => {
    const worker = { id: 'box-7-k', host: 'box', pid: 7 };
    const view = viewOfEntries([{ ...entry('far', { phase: 'running' }), worker }], { daemon: DAEMON });
    expect(view.tasks[0]).toMatchObject({ id: 'far', state: 'running', worker });
    expect(view.tasks[0]?.run).not.toHaveProperty('worker');
  });
});
