import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { WiggumError } from '../../src/errors.js';
import { taskSettings } from '../../src/loop/task-settings.js';
import type { TaskSettings } from '../../src/loop/task-settings.js';
import { buildJobData, jobIdFor, parseJobData, taskIdOfJob } from '../../src/queue/job-data.js';
import type { JobDataInput } from '../../src/queue/job-data.js';
import { MEMORY_CAP_BYTES } from '../../src/queue/memory-files.js';
import { missingDefinition, runConfigOf } from '../../src/queue/own-harness.js';

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
    // The harness and check by name only: a job carries no command line.
    expect(parsed.settings).toEqual({ ...settings, harness: { name: 'demo' }, verify: null });
    expect(JSON.stringify(buildJobData(input()))).not.toContain(settings.harness.command);
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
    ['another version', { version: 1 }, 'protocol version 1'],
    ['no version', { version: undefined }, 'protocol version none'],
    ['an unknown key', { extra: true }, 'extra'],
    ['a task id with a colon', { taskId: 'a:b' }, 'taskId'],
    ['a branch that reads as an option', { code: { remote: 'r', branch: '-f', commit: null } }, 'branch'],
    ['an abbreviated commit', { code: { remote: 'r', branch: 'b', commit: 'abc123' } }, 'commit'],
    ['a remote with a space', { code: { remote: 'a b', branch: 'b', commit: null } }, 'remote'],
    ['a harness with no name', { settings: { ...viaJsonObject(), harness: {} } }, 'settings'],
    [
      'a harness that carries a command',
      { settings: { ...viaJsonObject(), harness: { name: 'demo', command: '/bin/sh', args: ['-c', 'id'] } } },
      'command',
    ],
    [
      'a check that carries a command',
      { settings: { ...viaJsonObject(), verify: { name: 'ci', command: 'curl', args: [] } } },
      'command',
    ],
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

describe("a worker runs only its own config's harnesses", () => {
  const jobSettings = parseJobData(viaJson(buildJobData(input()))).settings;
  test.each([
    // harness, verify, worker's harnesses, worker's checks, missing (a word of it) or null
    ['demo', null, ['demo'], [], null],
    ['demo', 'ci', ['demo'], ['ci'], null],
    ['claude', null, ['demo'], [], 'harness claude is not in this worker'],
    ['demo', 'ci', ['demo'], [], 'check ci is not in this worker'],
    ['toString', null, ['demo'], [], 'harness toString is not in this worker'], // no inherited name
  ] as const)('harness %s, check %s; worker has %j and %j', (harness, verify, harnesses, checks, missing) => {
    const own = {
      ...config,
      harnesses: Object.fromEntries(harnesses.map((name) => [name, settings.harness])),
      checks: Object.fromEntries(
        checks.map((name) => [name, { name, command: 'true', args: [], env: {}, timeoutMs: 1 }]),
      ),
    };
    const job = { ...jobSettings, harness: { name: harness }, verify: verify === null ? null : { name: verify } };
    const problem = missingDefinition(job, own);
    if (missing === null) expect(problem).toBeNull();
    else expect(problem).toContain(missing);
  });

  test("the run's config: the worker's own harness definitions, the job's harness as the default, the job's limits", () => {
    const own = { ...config, harnesses: { demo: { ...settings.harness, command: '/opt/worker/agent' } } };
    const run = runConfigOf(own, { ...jobSettings, loop: { ...jobSettings.loop, maxIterations: 3 } }, '/w/runs');
    expect(run.harnesses.demo?.command).toBe('/opt/worker/agent');
    expect(run.harness.defaultName).toBe('demo');
    expect(run.loop.maxIterations).toBe(3);
    expect(run.allowedWorkdirs).toEqual(['/w/runs']);
  });
});

function viaJsonObject(): Record<string, unknown> {
  return (viaJson(buildJobData(input())) as { settings: Record<string, unknown> }).settings;
}
