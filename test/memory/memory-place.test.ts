import { describe, expect, test } from 'vitest';
import { memoryPlace, seedFrom } from '../../src/memory/memory-place.js';
import type { MemoryPlace, MemoryPlaceInput } from '../../src/memory/memory-place.js';

describe('memoryPlace: where prd.json and progress.txt live', () => {
  test.each<[string, MemoryPlaceInput, MemoryPlace]>([
    [
      'off (the default): the session folder, in a repository too',
      { inWorkdir: false, repository: true, durable: true },
      { where: 'session', why: 'configured' },
    ],
    [
      'off, outside a repository',
      { inWorkdir: false, repository: false, durable: true },
      { where: 'session', why: 'configured' },
    ],
    [
      'on, in a repository, on disk: the workdir',
      { inWorkdir: true, repository: true, durable: true },
      { where: 'workdir' },
    ],
    [
      'on, outside a repository: the session folder, never a failure',
      { inWorkdir: true, repository: false, durable: true },
      { where: 'session', why: 'not-a-repository' },
    ],
    [
      'on, in a repository, memory not on disk: no session folder to keep the copy in',
      { inWorkdir: true, repository: true, durable: false },
      { where: 'session', why: 'not-durable' },
    ],
    [
      'on, neither: the repository is named first',
      { inWorkdir: true, repository: false, durable: false },
      { where: 'session', why: 'not-a-repository' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(memoryPlace(input)).toEqual(expected);
  });
});

describe('seedFrom: which copy a run starts from once memory is in the workdir', () => {
  test.each<[string, { sessionCreated: boolean; inWorkdir: boolean }, 'session' | 'workdir']>([
    ['a new task on a new branch: the built prd', { sessionCreated: true, inWorkdir: false }, 'session'],
    [
      "a new task on a branch an earlier task left .ralph/ on: its own built prd, not the other's",
      { sessionCreated: true, inWorkdir: true },
      'session',
    ],
    [
      'a resume or a retry, the branch holding the files: the committed ones, not recreated',
      { sessionCreated: false, inWorkdir: true },
      'workdir',
    ],
    [
      'a resume of a task started before memory.in_workdir was set: the session has the only copy',
      { sessionCreated: false, inWorkdir: false },
      'session',
    ],
  ])('%s', (_name, input, expected) => {
    expect(seedFrom(input)).toBe(expected);
  });
});
