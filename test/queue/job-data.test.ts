import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { WiggumError } from '../../src/errors.js';
import { taskSettings } from '../../src/loop/task-settings.js';
import type { TaskSettings } from '../../src/loop/task-settings.js';
import { buildJobData, jobIdFor, parseJobData, taskIdOfJob } from '../../src/queue/job-data.js';
import type { JobDataInput } from '../../src/queue/job-data.js';
import { MEMORY_CAP_BYTES } from '../../src/queue/memory-files.js';

const shipped = await loadConfig();
const config = {
  ...shipped,
  loop: {
    ...shipped.loop,
    retry: { ...shipped.loop.retry, retriable: { exitCodes: [42], patterns: [/upstream connect error/i] } },
  },
};
const resolved = taskSettings({}, { harness: 'demo', max_iterations: 7, verify: undefined }, config);
if (resolved.kind !== 'settings') throw new Error('the shipped config has no demo harness');
const settings: TaskSettings = resolved.settings;
const SHA = 'a'.repeat(40);

function input(overrides: Partial<JobDataInput> = {}): JobDataInput {
  return {
    taskId: 'fix-login',
    fileName: 'fix-login.md',
    taskText: '---\ntitle: Fix login\n---\nMake it work. ☕\n',
    settings,
    account: 'demo',
    checkpoint: {
      status: 'running',
      session: 's-1',
      iteration: 3,
      max_iterations: 7,
      checkpoint: { completed_steps: ['US-1'], current_step: 'US-2', state_data: { attempt: 0 } },
    },
    memory: { prd: '{"userStories":[]}', progress: 'learned: use the API\n', context: null },
    code: { remote: 'ssh://git@host/repo.git', branch: 'wiggum/fix-login', commit: SHA, base: 'main' },
    seq: 3,
    generationBase: 0,
    ...overrides,
  };
}

/** The data as Redis hands it back: JSON, not the objects the host built. */
const viaJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

function thrown(act: () => unknown): WiggumError {
  try {
    act();
  } catch (error) {
    if (error instanceof WiggumError) return error;
    throw error;
  }
  throw new Error('expected a WiggumError');
}

describe('jobIdFor: one idempotent job id per task', () => {
  test.each([
    ['fix-login', 'task-fix-login'],
    ['2026.01_a', 'task-2026.01_a'],
    ['42', 'task-42'], // never all digits: BullMQ's own ids are numbers
  ])('%s → %s, and back', (taskId, jobId) => {
    expect(jobIdFor(taskId)).toBe(jobId);
    expect(jobId).not.toContain(':');
    expect(taskIdOfJob(jobId)).toBe(taskId);
  });

  test.each(['a:b', '-x', '', 'has space', 'x'.repeat(129)])('refused: %j', (taskId) => {
    expect(thrown(() => jobIdFor(taskId)).code).toBe('E_QUEUE_PROTOCOL');
  });

  test.each(['17', 'repeat:task-a:1', 'task-', 'task-a:b'])('not a task run: %j', (jobId) => {
    expect(taskIdOfJob(jobId)).toBeNull();
  });
});

describe('job data: built on the host, parsed back on a worker', () => {
  test('round trip through JSON: the same settings, the patterns compiled again', () => {
    const parsed = parseJobData(viaJson(buildJobData(input())));
    expect(parsed.settings).toEqual(settings);
    expect(parsed.settings.loop.retry.retriable.patterns[0]?.test('Upstream Connect Error')).toBe(true);
    expect(parsed.settings.loop.retry.retriable.exitCodes).toEqual([42]);
    expect(parsed.taskText).toBe(input().taskText);
    expect(parsed.memory).toEqual(input().memory);
    expect(parsed.code).toEqual(input().code);
    expect(parsed.checkpoint?.iteration).toBe(3);
  });

  test('a task that never ran: no checkpoint, no memory, nothing pushed', () => {
    const data = input({ checkpoint: null, memory: { prd: null, progress: null, context: null } });
    const parsed = parseJobData(viaJson(buildJobData({ ...data, code: { ...data.code, commit: null } })));
    expect([parsed.checkpoint, parsed.code.commit, parsed.memory.prd]).toEqual([null, null, null]);
  });

  test.each([
    ['another version', { version: 2 }, 'protocol version 2'],
    ['no version', { version: undefined }, 'protocol version none'],
    ['an unknown key', { extra: true }, 'extra'],
    ['a task id with a colon', { taskId: 'a:b' }, 'taskId'],
    ['a branch that reads as an option', { code: { remote: 'r', branch: '-f', commit: null } }, 'branch'],
    ['an abbreviated commit', { code: { remote: 'r', branch: 'b', commit: 'abc123' } }, 'commit'],
    ['a remote with a space', { code: { remote: 'a b', branch: 'b', commit: null } }, 'remote'],
    ['a harness of an unknown kind', { settings: { ...viaJsonObject(), harness: { kind: 'x' } } }, 'settings'],
  ])('refused with E_QUEUE_PROTOCOL: %s', (_name, change, words) => {
    const data = { ...(viaJson(buildJobData(input())) as Record<string, unknown>), ...change };
    const error = thrown(() => parseJobData(data));
    expect(error.code).toBe('E_QUEUE_PROTOCOL');
    expect(error.message).toContain(words);
  });

  test.each([
    ['progress.txt past the cap', { prd: '{}', progress: 'x'.repeat(MEMORY_CAP_BYTES), context: null }, 'progress.txt'],
    [
      'three files that add up past it',
      { prd: 'p'.repeat(400_000), progress: 'q'.repeat(400_000), context: 'c'.repeat(400_000) },
      'prd.json',
    ],
    ['multi-byte text counted in bytes', { prd: null, progress: null, context: '☕'.repeat(360_000) }, 'context.md'],
  ])(
    'memory past the cap: E_QUEUE_JOB_TOO_LARGE naming the file, the sizes and what to do (%s)',
    (_name, memory, file) => {
      for (const act of [
        () => buildJobData(input({ memory })),
        () => parseJobData(viaJson({ ...buildJobData(input()), memory })),
      ]) {
        const error = thrown(act);
        expect(error.code).toBe('E_QUEUE_JOB_TOO_LARGE');
        expect(error.message).toContain(file);
        expect(error.message).toMatch(/MiB.*1\.0 MiB/);
        expect(error.message).toContain('Shorten');
        expect(error.details).toMatchObject({ taskId: 'fix-login', capBytes: MEMORY_CAP_BYTES, file });
      }
    },
  );

  test('memory exactly at the cap is carried', () => {
    const memory = { prd: null, progress: 'x'.repeat(MEMORY_CAP_BYTES), context: null };
    expect(parseJobData(viaJson(buildJobData(input({ memory })))).memory.progress).toHaveLength(MEMORY_CAP_BYTES);
  });
});

function viaJsonObject(): Record<string, unknown> {
  return (viaJson(buildJobData(input())) as { settings: Record<string, unknown> }).settings;
}
