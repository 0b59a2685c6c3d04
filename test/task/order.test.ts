import { describe, expect, test } from 'vitest';
import { dependencyIds, orderWaitText, orderWaits, parseNotBefore } from '../../src/task/order.js';
import type { OrderTask, OrderWait, Place } from '../../src/task/order.js';
import { parseTask } from '../../src/task/parse.js';

const NOW = Date.UTC(2026, 0, 27, 10, 0, 0);

/** A task of the table: `id: dep, dep @time` (time in minutes from NOW). */
function task(id: string, dependsOn: string[] = [], notBeforeMin: number | null = null): OrderTask {
  return { id, dependsOn, notBeforeMs: notBeforeMin === null ? null : NOW + notBeforeMin * 60_000 };
}

describe('orderWaits: whether a task in Approved/ may start, from depends_on, not_before and the vault', () => {
  test.each<[string, OrderTask[], Record<string, Place>, Record<string, OrderWait>]>([
    ['no dependency, no time: runs', [task('a')], {}, {}],
    ['its dependency is in Done/: runs', [task('b', ['a'])], { a: 'done', b: 'pending' }, {}],
    [
      'its dependency is still to run: waits for it',
      [task('b', ['a'])],
      { a: 'pending', b: 'pending' },
      { b: { kind: 'dependencies', ids: ['a'] } },
    ],
    [
      'a chain dropped in reverse: each waits for the one before',
      [task('c', ['b']), task('b', ['a']), task('a')],
      { a: 'pending', b: 'pending', c: 'pending' },
      { c: { kind: 'dependencies', ids: ['b'] }, b: { kind: 'dependencies', ids: ['a'] } },
    ],
    [
      'only the dependencies not yet done are named',
      [task('c', ['a', 'b'])],
      { a: 'done', b: 'pending', c: 'pending' },
      { c: { kind: 'dependencies', ids: ['b'] } },
    ],
    [
      'a dependency in Rejected/: blocked, naming it',
      [task('child', ['bad'])],
      { bad: 'rejected', child: 'pending' },
      { child: { kind: 'dependency-rejected', ids: ['bad'] } },
    ],
    [
      'a rejected dependency put back in Approved/ (found in both): waits for it again',
      [task('child', ['bad'])],
      { bad: 'pending', child: 'pending' },
      { child: { kind: 'dependencies', ids: ['bad'] } },
    ],
    [
      'an id no task has: blocked, naming it',
      [task('u', ['no-such', 'a'])],
      { a: 'done', u: 'pending' },
      { u: { kind: 'dependency-unknown', ids: ['no-such'] } },
    ],
    [
      'a cycle of two: reported on both',
      [task('x', ['y']), task('y', ['x'])],
      { x: 'pending', y: 'pending' },
      { x: { kind: 'dependency-cycle', ids: ['x', 'y'] }, y: { kind: 'dependency-cycle', ids: ['y', 'x'] } },
    ],
    [
      'a cycle of three: reported on each, a task waiting on it only waits',
      [task('p', ['q']), task('q', ['r']), task('r', ['p']), task('s', ['p'])],
      { p: 'pending', q: 'pending', r: 'pending', s: 'pending' },
      {
        p: { kind: 'dependency-cycle', ids: ['p', 'q', 'r'] },
        q: { kind: 'dependency-cycle', ids: ['q', 'r', 'p'] },
        r: { kind: 'dependency-cycle', ids: ['r', 'p', 'q'] },
        s: { kind: 'dependencies', ids: ['p'] },
      },
    ],
    [
      'a task naming itself: a cycle of one',
      [task('me', ['me'])],
      { me: 'pending' },
      { me: { kind: 'dependency-cycle', ids: ['me'] } },
    ],
    ['a path through a task in Done/ is no cycle', [task('x', ['y'])], { x: 'pending', y: 'done' }, {}],
    [
      'not_before still to come: waits until then',
      [task('t', [], 5)],
      {},
      { t: { kind: 'not-before', atMs: NOW + 300_000 } },
    ],
    ['not_before come: runs', [task('t', [], 0)], {}, {}],
    ['not_before past: runs', [task('t', [], -60)], {}, {}],
    [
      'dependencies first, then the time',
      [task('t', ['a'], 5)],
      { a: 'pending', t: 'pending' },
      { t: { kind: 'dependencies', ids: ['a'] } },
    ],
    [
      'dependencies done, the time not come: waits for the time',
      [task('t', ['a'], 5)],
      { a: 'done', t: 'pending' },
      { t: { kind: 'not-before', atMs: NOW + 300_000 } },
    ],
  ])('%s', (_what, tasks, places, expected) => {
    const graph = new Map(tasks.map((each) => [each.id, each.dependsOn]));
    const waits = orderWaits(tasks, graph, new Map(Object.entries(places)), NOW);
    expect(Object.fromEntries(waits)).toEqual(expected);
  });
});

describe('parseNotBefore: a date-time, with a zone or local', () => {
  const local = (...parts: [number, number, number, number, number, number]): number => new Date(...parts).getTime();
  test.each<[string, number | null]>([
    ['2026-01-27T10:05:00Z', Date.UTC(2026, 0, 27, 10, 5, 0)],
    ['2026-01-27T10:05:00.250Z', Date.UTC(2026, 0, 27, 10, 5, 0, 250)],
    ['2026-01-27 10:05Z', Date.UTC(2026, 0, 27, 10, 5, 0)],
    ['2026-01-27T12:05:00+02:00', Date.UTC(2026, 0, 27, 10, 5, 0)],
    ['2026-01-27T12:05:00+0200', Date.UTC(2026, 0, 27, 10, 5, 0)],
    ['2026-01-27T05:05-05', Date.UTC(2026, 0, 27, 10, 5, 0)],
    ['2026-01-27T10:05', local(2026, 0, 27, 10, 5, 0)],
    ['2026-01-27', local(2026, 0, 27, 0, 0, 0)],
    ['  2026-01-27T10:05:00Z  ', Date.UTC(2026, 0, 27, 10, 5, 0)],
    ['next tuesday-ish', null],
    ['', null],
    ['2026-02-30T10:00:00Z', null],
    ['2026-13-01T10:00:00Z', null],
    ['2026-01-27T24:00:00Z', null],
    ['2026-01-27T10:60:00Z', null],
    ['1769508300', null],
    ['2026-01-27T10:05:00+25:00', null],
  ])('%j', (text, expected) => {
    expect(parseNotBefore(text)).toBe(expected);
  });
});

describe('dependencyIds', () => {
  test.each<[string[], string[]]>([
    [
      ['a', 'b'],
      ['a', 'b'],
    ],
    [['a', 'a'], ['a']],
    [
      ['[[chain-a]]', ' b.md '],
      ['chain-a', 'b'],
    ],
    [['[[chain-a|the first]]'], ['chain-a']],
  ])('%j', (given, expected) => expect(dependencyIds(given)).toEqual(expected));
});

describe('orderWaitText: what status and the Dashboard say', () => {
  const time = (ms: number): string => new Date(ms).toISOString();
  test.each<[OrderWait, RegExp]>([
    [{ kind: 'dependencies', ids: ['chain-a'] }, /^waiting for chain-a \(depends_on\)/],
    [{ kind: 'not-before', atMs: NOW }, /^not before 2026-01-27T10:00:00.000Z/],
    [{ kind: 'dependency-rejected', ids: ['dep-bad'] }, /dependency dep-bad was rejected/],
    [{ kind: 'dependency-cycle', ids: ['x', 'y'] }, /cycle \(x → y → x\)/],
    [{ kind: 'dependency-unknown', ids: ['zz'] }, /names zz, which no task file/],
  ])('%j', (wait, expected) => expect(orderWaitText(wait, time)).toMatch(expected));
});

describe('the frontmatter keys', () => {
  const parse = (yaml: string) => parseTask('/v/Approved/me.md', `---\nharness: demo\n${yaml}---\nbody\n`);
  test.each<[string, string, string[] | undefined]>([
    ['a list', 'depends_on: [a, b]\n', ['a', 'b']],
    ['one id alone', 'depends_on: a\n', ['a']],
    ['an Obsidian link', 'depends_on:\n  - "[[a]]"\n', ['a']],
    ['empty', 'depends_on:\n', undefined],
  ])('depends_on as %s', (_what, yaml, expected) => {
    const result = parse(yaml);
    expect(result.ok && result.task.frontmatter.depends_on).toEqual(result.ok ? expected : false);
  });

  test.each<[string, RegExp]>([
    ['depends_on: [me]\n', /depends_on: names this task itself \(me\)/],
    ['depends_on: [a, "not an id!"]\n', /depends_on\.1: each entry of depends_on is the id of another task/],
    ['depends_on: {a: 1}\n', /depends_on: depends_on is a list of task ids/],
    ['not_before: next tuesday-ish\n', /not_before: not_before is not a date-time wiggum can read/],
    ['not_before: 2026-02-30T10:00:00Z\n', /not_before/],
  ])('%j is a problem that names its key', (yaml, expected) => {
    const result = parse(yaml);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((problem) => problem.message).join('\n')).toMatch(expected);
  });

  test.each<[string, number]>([
    ['priority: high\n', -10],
    ['priority: highest\n', -20],
    ['priority: normal\n', 0],
    ['priority: low\n', 10],
    ['priority: 3\n', 3],
  ])('%j: lower runs first, so high is below normal', (yaml, expected) => {
    const result = parse(yaml);
    expect(result.ok && result.task.frontmatter.priority).toBe(expected);
  });
});
