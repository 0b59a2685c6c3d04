import { describe, expect, test } from 'vitest';
import { BUSY_TASK_RETRY_MS, endedPolicy, settlePolicy } from '../../src/daemon/settle-policy.js';
import type { SaidOnce, SettleAction, SettleFacts } from '../../src/daemon/settle-policy.js';
import { WiggumError } from '../../src/errors.js';

const NOW = 1_800_000_000_000;
const FAILED_RETRY_MS = 60_000;
const facts: SettleFacts = {
  name: 'a-task.md',
  error: null,
  fileExists: true,
  said: new Set(),
  failedRetryMs: FAILED_RETRY_MS,
  nowMs: NOW,
};

const lockedBy = (owner: Record<string, unknown> | undefined) =>
  new WiggumError(
    'E_LOCKED',
    'the task is running in another process (pid 4242)',
    owner === undefined ? {} : { details: { owner } },
  );
const unreadable = new WiggumError('E_TASK_UNREADABLE', 'a-task.md cannot be read: give the wiggum user read access');
const bug = new Error('Cannot read properties of undefined');

describe('settlePolicy: what follows a run', () => {
  const cases: [string, Partial<SettleFacts>, SettleAction[]][] = [
    ['a run that came to its own end: what was said about the task may be said again', {}, [{ kind: 'clear-said' }]],
    [
      'its harness was removed after the scan: forgotten, and the watcher reads it again',
      { error: new WiggumError('E_NO_HARNESS', 'name a harness') },
      [{ kind: 'forget' }, { kind: 'mark-finished' }, { kind: 'rescan' }],
    ],
    [
      'emptied after the scan: forgotten, read again',
      { error: new WiggumError('E_TASK_EMPTY', 'a-task.md is empty') },
      [{ kind: 'forget' }, { kind: 'mark-finished' }, { kind: 'rescan' }],
    ],
    [
      'running in another process: said once, listed as running there, looked at again in 5 s',
      { error: lockedBy({ pid: 4242, host: 'h' }) },
      [
        {
          kind: 'log',
          level: 'warn',
          event: 'task.busy-elsewhere',
          message: 'the task is running in another process (pid 4242); it is taken here once that run ends',
          fields: { owner: { pid: 4242, host: 'h' } },
        },
        { kind: 'note-said', what: 'busy-elsewhere' },
        { kind: 'list-running-elsewhere', pid: 4242 },
        { kind: 'retry-later', delayMs: BUSY_TASK_RETRY_MS },
      ],
    ],
    [
      'running in another process, said already: quiet',
      { error: lockedBy({ pid: 4242 }), said: new Set<SaidOnce>(['busy-elsewhere']) },
      [
        { kind: 'note-said', what: 'busy-elsewhere' },
        { kind: 'list-running-elsewhere', pid: 4242 },
        { kind: 'retry-later', delayMs: BUSY_TASK_RETRY_MS },
      ],
    ],
    [
      'locked by an owner with no pid: not listed at all, never as queued here',
      { error: lockedBy(undefined), said: new Set<SaidOnce>(['busy-elsewhere']) },
      [
        { kind: 'note-said', what: 'busy-elsewhere' },
        { kind: 'forget' },
        { kind: 'retry-later', delayMs: BUSY_TASK_RETRY_MS },
      ],
    ],
    [
      'moved or deleted by its author before its run: nothing failed, nothing listed',
      { error: new WiggumError('E_TASK_NOT_FOUND', 'gone'), fileExists: false },
      [{ kind: 'forget' }, { kind: 'mark-finished' }, { kind: 'rescan' }],
    ],
    [
      'not found, yet the file is there (gone for a moment): a failure like any other',
      { error: new WiggumError('E_TASK_NOT_FOUND', 'gone'), fileExists: true },
      [
        {
          kind: 'log',
          level: 'error',
          event: 'task.loop-failed',
          message: 'the loop of a-task.md failed unexpectedly; it is tried again in 1m00s',
          fields: { err: new WiggumError('E_TASK_NOT_FOUND', 'gone') },
        },
        { kind: 'list-failing', reason: 'gone', retryAtMs: NOW + FAILED_RETRY_MS },
        { kind: 'retry-later', delayMs: FAILED_RETRY_MS },
      ],
    ],
    [
      'unreadable: the user’s to fix, said once as a warning, listed, tried again after failed_retry',
      { error: unreadable },
      [
        { kind: 'note-said', what: 'unreadable' },
        {
          kind: 'log',
          level: 'warn',
          event: 'task.unreadable',
          message: `${unreadable.message} (every 1m00s)`,
          fields: { err: unreadable },
        },
        { kind: 'list-failing', reason: unreadable.message, retryAtMs: NOW + FAILED_RETRY_MS },
        { kind: 'retry-later', delayMs: FAILED_RETRY_MS },
      ],
    ],
    [
      'unreadable again: tried again quietly, still listed',
      { error: unreadable, said: new Set<SaidOnce>(['unreadable']) },
      [
        { kind: 'list-failing', reason: unreadable.message, retryAtMs: NOW + FAILED_RETRY_MS },
        { kind: 'retry-later', delayMs: FAILED_RETRY_MS },
      ],
    ],
    [
      'any other failure: an error every time, listed failing with why, tried again after failed_retry',
      { error: bug, said: new Set<SaidOnce>(['unreadable', 'busy-elsewhere']) },
      [
        {
          kind: 'log',
          level: 'error',
          event: 'task.loop-failed',
          message: 'the loop of a-task.md failed unexpectedly; it is tried again in 1m00s',
          fields: { err: bug },
        },
        { kind: 'list-failing', reason: bug.message, retryAtMs: NOW + FAILED_RETRY_MS },
        { kind: 'retry-later', delayMs: FAILED_RETRY_MS },
      ],
    ],
    [
      'a rejection that is no Error: listed as an unknown failure',
      { error: 'boom', failedRetryMs: 5000 },
      [
        {
          kind: 'log',
          level: 'error',
          event: 'task.loop-failed',
          message: 'the loop of a-task.md failed unexpectedly; it is tried again in 5s',
          fields: { err: 'boom' },
        },
        { kind: 'list-failing', reason: 'an unknown failure', retryAtMs: NOW + 5000 },
        { kind: 'retry-later', delayMs: 5000 },
      ],
    ],
  ];

  test.each(cases)('%s', (_name, change, actions) => {
    expect(settlePolicy({ ...facts, ...change })).toEqual(actions);
  });

  test('decided on the code, never on the text: a message that reads like another code changes nothing', () => {
    const disguised = new WiggumError('E_TASK_UNREADABLE', 'E_LOCKED: E_NO_HARNESS');
    expect(settlePolicy({ ...facts, error: disguised }).map((action) => action.kind)).toEqual([
      'note-said',
      'log',
      'list-failing',
      'retry-later',
    ]);
  });
});

describe('endedPolicy: what the watcher is told about a run that ended on its own', () => {
  test.each([
    ['done: finished', { status: 'done' }, [{ kind: 'mark-finished' }]],
    ['rejected: finished', { status: 'rejected', reason: 'reached max_iterations' }, [{ kind: 'mark-finished' }]],
    [
      'stopped by its flag: offered again once the flag goes',
      { status: 'stopped', reason: 'stop-flag' },
      [{ kind: 'mark-stopped' }],
    ],
    [
      'stopped because its file went: finished',
      { status: 'stopped', reason: 'task-gone' },
      [{ kind: 'mark-finished' }],
    ],
    [
      'interrupted by a drain: left as it is, to run at the next start',
      { status: 'interrupted', reason: 'interrupted' },
      [],
    ],
  ] as const)('%s', (_name, result, actions) => {
    expect(endedPolicy(result)).toEqual(actions);
  });
});
