import { describe, expect, test } from 'vitest';
import { restorableRecent } from '../../src/daemon/recent.js';
import type { FinishedEntry } from '../../src/daemon/status.js';

const done = (file: string, atMs: number): FinishedEntry => ({
  id: file,
  status: 'done',
  file: `/v/Done/${file}.md`,
  iterations: 2,
  atMs,
});
const there = new Set(['/v/Done/a.md', '/v/Done/b.md', '/v/Rejected/r.md', '/v/Done/c.md']);
const exists = (file: string): boolean => there.has(file);

describe('restorableRecent: what an earlier daemon saw finish, listed again after a restart', () => {
  test.each<[string, unknown, string[]]>([
    [
      'the earlier list, newest first',
      {
        recent: [
          done('a', 1),
          done('b', 3),
          { id: 'r', status: 'rejected', file: '/v/Rejected/r.md', iterations: 1, reason: 'E_X', atMs: 2 },
        ],
      },
      ['b', 'r', 'a'],
    ],
    ['a file no longer where it ended is dropped', { recent: [done('a', 2), done('moved-back', 3)] }, ['a']],
    [
      'malformed entries are dropped, good ones kept',
      {
        recent: [
          null,
          'x',
          { ...done('a', 1), status: 'stopped' },
          { ...done('b', 1), atMs: 'soon' },
          { ...done('c', 1), id: 7 },
          done('b', 5),
        ],
      },
      ['b'],
    ],
    ['no recent list (an older or foreign file)', { version: 1 }, []],
    ['not an object', 'garbage', []],
    ['nothing', null, []],
  ])('%s', (_name, status, ids) => {
    expect(restorableRecent(status, exists).map((entry) => entry.id)).toEqual(ids);
  });

  test('at most `limit`, the newest', () => {
    expect(
      restorableRecent({ recent: [done('a', 1), done('b', 2), done('c', 3)] }, exists, 2).map((entry) => entry.id),
    ).toEqual(['c', 'b']);
  });

  test('a rejection keeps its reason; a done task has none', () => {
    const [rejected] = restorableRecent(
      {
        recent: [
          { id: null, status: 'rejected', file: '/v/Rejected/r.md', iterations: 1, reason: 'E_X: why', atMs: 2 },
        ],
      },
      exists,
    );
    expect(rejected).toEqual({
      id: null,
      status: 'rejected',
      file: '/v/Rejected/r.md',
      iterations: 1,
      reason: 'E_X: why',
      atMs: 2,
    });
  });
});
