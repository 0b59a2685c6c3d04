import { describe, expect, test } from 'vitest';
import { matchTaskRef } from '../../src/vault/task-ref.js';
import type { TaskEntry } from '../../src/vault/task-ref.js';

/** `Folder/name.md` with its id; the id defaults to what the file name gives. */
function entry(path: string, id?: string): TaskEntry {
  const name = path.slice(path.indexOf('/') + 1);
  return { file: `/v/${path}`, name, id: id ?? name.replace(/\.md$/, '').replace(/[^A-Za-z0-9._-]+/g, '-') };
}

// In search order: the folders in order, each sorted by name.
const VAULT = [
  entry('Approved/Deploy.md'),
  entry('Approved/Fix login bug.md'),
  entry('Approved/custom.md', 'the-real-id'),
  entry('Approved/deploy.md'),
  entry('Approved/other.md', 'shared'),
  entry('Approved/shared.md'),
  entry('Done/done-task.md'),
  entry('Done/reuse-2.md', 'reuse'),
  entry('Done/reuse.md'),
  entry('Done/same name.md', 'one-id'),
  entry('Rejected/broken.md'),
  entry('Rejected/same name.md', 'another-id'),
];

type Expected = { found: string; by: string } | { ambiguous: string[] } | 'none';

describe('matchTaskRef: which task a user means', () => {
  test.each<[string, string[], Expected]>([
    // a path (the caller gives the files it stands for)
    ['Approved/Fix login bug.md', ['/v/Approved/Fix login bug.md'], { found: 'Approved/Fix login bug.md', by: 'path' }],
    ['/v/Done/reuse-2.md', ['/v/Done/reuse-2.md'], { found: 'Done/reuse-2.md', by: 'path' }],
    ['Done/deploy.md', ['/v/Done/deploy.md'], 'none'],
    // the exact id: <id>.md first, else the first in search order; never ambiguous
    ['Fix-login-bug', [], { found: 'Approved/Fix login bug.md', by: 'id' }],
    ['the-real-id', [], { found: 'Approved/custom.md', by: 'id' }],
    ['shared', [], { found: 'Approved/shared.md', by: 'id' }],
    ['reuse', [], { found: 'Done/reuse.md', by: 'id' }],
    ['Deploy', [], { found: 'Approved/Deploy.md', by: 'id' }],
    ['deploy', [], { found: 'Approved/deploy.md', by: 'id' }],
    ['broken', [], { found: 'Rejected/broken.md', by: 'id' }],
    // the exact file name, with or without .md
    ['Fix login bug', [], { found: 'Approved/Fix login bug.md', by: 'name' }],
    ['Fix login bug.md', [], { found: 'Approved/Fix login bug.md', by: 'name' }],
    ['custom', [], { found: 'Approved/custom.md', by: 'name' }],
    ['custom.md', [], { found: 'Approved/custom.md', by: 'name' }],
    ['same name', [], { ambiguous: ['Done/same name.md', 'Rejected/same name.md'] }],
    // any letter case, when it names one id
    ['FIX-LOGIN-BUG', [], { found: 'Approved/Fix login bug.md', by: 'any-case' }],
    ['fix login bug', [], { found: 'Approved/Fix login bug.md', by: 'any-case' }],
    ['THE-REAL-ID', [], { found: 'Approved/custom.md', by: 'any-case' }],
    ['REUSE', [], { found: 'Done/reuse.md', by: 'any-case' }],
    ['DEPLOY', [], { ambiguous: ['Approved/Deploy.md', 'Approved/deploy.md'] }],
    ['Deploy.MD', [], { ambiguous: ['Approved/Deploy.md', 'Approved/deploy.md'] }],
    // nothing
    ['ghost', [], 'none'],
    ['', [], 'none'],
    ['  ', [], 'none'],
    ['Fix login', [], 'none'],
  ])('%j', (ref, refFiles, expected) => {
    const match = matchTaskRef(ref, VAULT, refFiles);
    if (expected === 'none') expect(match).toEqual({ kind: 'none' });
    else if ('found' in expected)
      expect(match).toEqual({
        kind: 'found',
        entry: VAULT.find((e) => e.file === `/v/${expected.found}`),
        by: expected.by,
      });
    else
      expect(match.kind === 'ambiguous' ? match.candidates.map((c) => c.file) : match).toEqual(
        expected.ambiguous.map((path) => `/v/${path}`),
      );
  });

  test('a path wins over an id that another file has', () => {
    const entries = [entry('Approved/a.md', 'b'), entry('Approved/b.md', 'a')];
    expect(matchTaskRef('a.md', entries, ['/v/Approved/a.md'])).toMatchObject({
      kind: 'found',
      entry: { name: 'a.md' },
      by: 'path',
    });
    expect(matchTaskRef('a', entries, [])).toMatchObject({ kind: 'found', entry: { name: 'b.md' }, by: 'id' });
  });
});
