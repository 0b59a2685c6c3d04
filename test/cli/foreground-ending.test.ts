import { describe, expect, test } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import type { ExitCode } from '../../src/cli/exit-codes.js';
import { foregroundEnding } from '../../src/cli/foreground.js';
import type { ReleaseFailure } from '../../src/cli/foreground.js';
import type { TaskRunResult } from '../../src/loop/events.js';

const result = (status: TaskRunResult['status'], reason?: string): TaskRunResult => ({
  status,
  taskId: 't',
  file: '/vault/Approved/t.md',
  iterations: 2,
  ...(reason === undefined ? {} : { reason }),
});
const handlersStuck: ReleaseFailure = { part: 'signal handlers', error: new Error('still installed') };

describe('foregroundEnding: the exit code of `wiggum run` and `ralph`, and what a failed lifecycle says', () => {
  test.each<[string, TaskRunResult, ReleaseFailure[], ExitCode]>([
    ['done: 0', result('done'), [], EXIT.complete],
    ['rejected: 1', result('rejected'), [], EXIT.failed],
    ['stopped by its flag: 3', result('stopped', 'stop-flag'), [], EXIT.stopped],
    ['interrupted by a signal: 3', result('interrupted', 'interrupted'), [], EXIT.stopped],
    ['its file went away: 3, it resumes when the file is back', result('interrupted', 'task-gone'), [], EXIT.stopped],
    ['blocked on a question: 3, it waits for a person', result('blocked'), [], EXIT.stopped],
    [
      'complete, waiting in Review/: 3, not 0 (it is not in Done/)',
      { ...result('done'), review: true },
      [],
      EXIT.stopped,
    ],
    ['done, but a part could not be released: 1, a failed lifecycle', result('done'), [handlersStuck], EXIT.failed],
    ['stopped, and a release threw: 1', result('stopped', 'stop-flag'), [handlersStuck], EXIT.failed],
  ])('%s', (_, ran, failures, code) => {
    expect(foregroundEnding(ran, failures).code).toBe(code);
  });

  test('a failed release is said, one line per part, naming the part and its error', () => {
    const watchStuck: ReleaseFailure = { part: 'stop flag watch', error: 'not a real error' };
    const { failures } = foregroundEnding(result('done'), [handlersStuck, watchStuck]);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toContain('signal handlers');
    expect(failures[0]).toContain('still installed');
    expect(failures[1]).toContain('stop flag watch');
    expect(failures[1]).toContain('not a real error');
  });

  test('nothing to say when every part was released', () => {
    expect(foregroundEnding(result('rejected'), []).failures).toEqual([]);
  });
});
