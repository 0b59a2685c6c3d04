import { describe, expect, test } from 'vitest';
import { claimFor, mayStart } from '../../src/daemon/admission.js';
import type { Claim } from '../../src/daemon/admission.js';

const onBranch = (repo: string, branch: string): Claim =>
  claimFor(`/w/${repo}`, { commonDir: `/${repo}/.git`, branch });
const inFolder = (workdir: string): Claim => claimFor(workdir, null);

describe('claimFor', () => {
  test.each([
    ['one branch of one repository', onBranch('r', 'x'), onBranch('r', 'x'), true],
    ['two branches of one repository', onBranch('r', 'x'), onBranch('r', 'y'), false],
    ['one branch name in two repositories', onBranch('r', 'x'), onBranch('s', 'x'), false],
    ['one folder outside a repository', inFolder('/w/a'), inFolder('/w/a'), true],
    ['two folders', inFolder('/w/a'), inFolder('/w/b'), false],
    ['a folder named like a branch key', inFolder('/r/.git\0x'), onBranch('r', 'x'), false],
  ])('%s: same key %s', (_name, a, b, same) => {
    expect(a.key === b.key).toBe(same);
  });
});

describe('mayStart', () => {
  const rows: [string, Claim, Claim[], number | null, boolean][] = [
    ['nothing else held', onBranch('r', 'x'), [], null, true],
    ['its branch is held', onBranch('r', 'x'), [onBranch('r', 'x')], null, false],
    [
      'other branches of its repository held, no cap',
      onBranch('r', 'x'),
      [onBranch('r', 'a'), onBranch('r', 'b')],
      null,
      true,
    ],
    ['the cap reached', onBranch('r', 'x'), [onBranch('r', 'a'), onBranch('r', 'b')], 2, false],
    ['under the cap', onBranch('r', 'x'), [onBranch('r', 'a'), onBranch('s', 'b')], 2, true],
    ['a folder outside a repository ignores the cap', inFolder('/w/a'), [inFolder('/w/b')], 1, true],
    ['its folder is held', inFolder('/w/a'), [inFolder('/w/a')], null, false],
  ];
  test.each(rows)('%s', (_name, job, holding, cap, expected) => {
    expect(mayStart(job, holding, cap)).toBe(expected);
  });
});
