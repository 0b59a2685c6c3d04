import { describe, expect, test } from 'vitest';
import { actionSteps } from '../../src/daemon/apply-actions.js';
import type { ActionStep, NamedJob } from '../../src/daemon/apply-actions.js';
import type { ReconcileAction } from '../../src/vault/reconcile.js';

const job = { id: 'fix-login', name: 'fix-login.md', file: '/v/Approved/fix-login.md' };
const named: NamedJob = { job };

describe('actionSteps: what a reconciliation action does to the queue and the status', () => {
  const cases: [string, ReconcileAction, NamedJob | undefined, ActionStep[]][] = [
    [
      'a settled file → queued',
      { kind: 'start', name: 'fix-login.md', path: job.file },
      undefined,
      [{ kind: 'enqueue', name: 'fix-login.md', file: job.file }],
    ],
    [
      'its stop flag removed → queued again (it resumes from its checkpoint)',
      { kind: 'resume', name: 'fix-login.md', path: job.file },
      undefined,
      [{ kind: 'enqueue', name: 'fix-login.md', file: job.file }],
    ],
    [
      'a stop flag for a task the queue holds, queued or running → dropped or aborted, and listed as stopped at once (status says so before any agent has gone)',
      { kind: 'stop', name: 'fix-login.md' },
      named,
      [
        { kind: 'stop-job', id: 'fix-login', name: 'fix-login.md', reason: 'stop-flag' },
        { kind: 'mark-stopped', id: 'fix-login', name: 'fix-login.md', file: job.file },
      ],
    ],
    ['a stop flag for a task the queue does not hold → nothing', { kind: 'stop', name: 'fix-login.md' }, undefined, []],
    [
      'a task the queue holds (queued or running) moved or deleted → stopped as gone and forgotten (its memory stays on disk)',
      { kind: 'gone', name: 'fix-login.md' },
      named,
      [
        { kind: 'stop-job', id: 'fix-login', name: 'fix-login.md', reason: 'task-gone' },
        { kind: 'forget', id: 'fix-login' },
      ],
    ],
    ['a task gone that the queue does not hold → nothing', { kind: 'gone', name: 'fix-login.md' }, undefined, []],
    ['the vault STOP appeared → hold', { kind: 'hold', on: true }, undefined, [{ kind: 'hold', on: true }]],
    ['the vault STOP removed → release', { kind: 'hold', on: false }, undefined, [{ kind: 'hold', on: false }]],
  ];

  test.each(cases)('%s', (_name, action, named, steps) => {
    expect(actionSteps(action, named)).toEqual(steps);
  });
});
