import { describe, expect, test } from 'vitest';
import { hostAction, stalledReport } from '../../src/queue/stall-policy.js';
import type { HostAction, JobEvent } from '../../src/queue/stall-policy.js';

const facts = { taskId: 'fix-login', maxStalled: 2, iteration: 7 };

/** An action with its report left out (the report has its own test). */
const kindOf = (action: HostAction): unknown =>
  action.kind === 'reject' ? { kind: 'reject', code: action.code } : action;

describe('hostAction: what the vault host does for each job event', () => {
  test.each<[string, JobEvent, unknown]>([
    ['completed: the ending written, the file moved, the job removed', { kind: 'completed' }, { kind: 'finish' }],
    ['progress: judged by applyProgress', { kind: 'progress' }, { kind: 'apply-progress' }],
    [
      'handed back by a worker given SIGTERM: no attempt, no stall; another worker resumes it',
      { kind: 'handed-back' },
      { kind: 'wait' },
    ],
    [
      'stalled once (a worker killed): catch up from the stored progress',
      { kind: 'stalled', stalls: 1 },
      { kind: 'catch-up' },
    ],
    ['stalled as often as allowed: still resumes', { kind: 'stalled', stalls: 2 }, { kind: 'catch-up' }],
    [
      'failed after one stall more than allowed: Rejected/ with a report, whatever its attempts',
      { kind: 'failed', code: null, stalls: 3, attemptsLeft: 2 },
      { kind: 'reject', code: 'E_QUEUE_STALLED' },
    ],
    [
      'failed with attempts left: BullMQ retries it (an attempt used)',
      { kind: 'failed', code: 'E_GIT', stalls: 0, attemptsLeft: 1 },
      { kind: 'wait' },
    ],
    [
      'failed for good with a fault of the machine or the network: offered again later',
      { kind: 'failed', code: 'E_GIT', stalls: 1, attemptsLeft: 0 },
      { kind: 'requeue' },
    ],
    [
      'failed for good with no code (a crash of the worker code): offered again later',
      { kind: 'failed', code: null, stalls: 0, attemptsLeft: 0 },
      { kind: 'requeue' },
    ],
    [
      'failed for good with a fault of the task (its workdir): Rejected/, no other run fixes it',
      { kind: 'failed', code: 'E_WORKDIR', stalls: 0, attemptsLeft: 0 },
      { kind: 'reject', code: 'E_WORKDIR' },
    ],
    [
      'failed for good: memory past the cap',
      { kind: 'failed', code: 'E_QUEUE_JOB_TOO_LARGE', stalls: 0, attemptsLeft: 0 },
      { kind: 'reject', code: 'E_QUEUE_JOB_TOO_LARGE' },
    ],
  ])('%s', (_name, event, expected) => {
    expect(kindOf(hostAction(event, facts))).toEqual(expected);
  });

  test('max_stalled 0: the first stall fails the run', () => {
    const action = hostAction({ kind: 'failed', code: null, stalls: 1, attemptsLeft: 3 }, { ...facts, maxStalled: 0 });
    expect(kindOf(action)).toEqual({ kind: 'reject', code: 'E_QUEUE_STALLED' });
  });
});

describe('stalledReport: what happened and what to do', () => {
  test('names the count, the setting, the causes, the fix and where the task resumes', () => {
    const report = stalledReport(facts, 3);
    expect(report).toContain('stalled 3 times');
    expect(report).toContain('queue.max_stalled (2)');
    expect(report).toContain('queue.lock_duration');
    expect(report).toContain('move the task back to Approved/');
    expect(report).toContain('iteration 7');
  });

  test('the rejecting action carries that report', () => {
    const action = hostAction({ kind: 'failed', code: null, stalls: 3, attemptsLeft: 0 }, facts);
    expect(action).toEqual({ kind: 'reject', code: 'E_QUEUE_STALLED', report: stalledReport(facts, 3) });
  });
});
