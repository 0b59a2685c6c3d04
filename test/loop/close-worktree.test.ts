import { describe, expect, test } from 'vitest';
import { hasEnded } from '../../src/loop/close-worktree.js';
import type { TaskRunResult } from '../../src/loop/events.js';

describe("hasEnded: when a task's worktree goes", () => {
  const result = (status: TaskRunResult['status'], reason?: string): TaskRunResult => ({
    status,
    taskId: 't',
    file: '/v/t.md',
    iterations: 1,
    ...(reason === undefined ? {} : { reason }),
  });
  test.each([
    [result('done'), true],
    [result('rejected', 'E_MAX_ITERATIONS'), true],
    [result('interrupted', 'task-gone'), true],
    [result('interrupted', 'interrupted'), false],
    [result('stopped', 'stop-flag'), false],
  ])('%o → %s', (given, expected) => {
    expect(hasEnded(given)).toBe(expected);
  });
});
