import { describe, expect, test } from 'vitest';
import {
  STATE_TABLE,
  TASK_FOLDERS,
  TASK_STATES,
  stateOfFolder,
  stateOfRunEnd,
  stateRank,
  stateWord,
} from '../../src/task/states.js';

describe('the table of task states', () => {
  test('every state has one row, and every row is a state', () => {
    expect(Object.keys(STATE_TABLE).sort()).toEqual([...TASK_STATES].sort());
  });

  test('the states that wait on a person come first in every view', () => {
    const firstOther = TASK_STATES.findIndex((state) => !STATE_TABLE[state].waitsOnPerson);
    expect(firstOther).toBeGreaterThan(0);
    expect(TASK_STATES.slice(firstOther).filter((state) => STATE_TABLE[state].waitsOnPerson)).toEqual([]);
    expect(stateRank('blocked')).toBeLessThan(stateRank('running'));
  });

  test('each state is one word in every view: its text spelling is its JSON spelling with spaces', () => {
    const words = TASK_STATES.map(stateWord);
    expect(new Set(words).size).toBe(TASK_STATES.length);
    for (const state of TASK_STATES) expect(stateWord(state).replace(/ /g, '-')).toBe(state);
    expect(stateWord('in-review')).toBe('in review');
  });

  test.each<[(typeof TASK_FOLDERS)[number], string | null]>([
    ['approved', null],
    ['blocked', 'blocked'],
    ['review', 'in-review'],
    ['done', 'done'],
    ['rejected', 'rejected'],
  ])('a file in %s is %s by its folder alone', (folder, state) => {
    expect(stateOfFolder(folder)).toBe(state);
    if (state !== null) expect(STATE_TABLE[state as (typeof TASK_STATES)[number]].folder).toBe(folder);
  });

  test('the states at work are in Approved/ and wait on nobody', () => {
    const atWork = TASK_STATES.filter((state) => STATE_TABLE[state].atWork);
    expect(atWork).toEqual(['running', 'landing', 'retrying', 'usage-limit', 'outage', 'held']);
    for (const state of atWork) expect(STATE_TABLE[state]).toMatchObject({ folder: 'approved', waitsOnPerson: false });
  });

  test('a lookup by id finds every state: each state lives in one of the folders searched', () => {
    for (const state of TASK_STATES) expect(TASK_FOLDERS).toContain(STATE_TABLE[state].folder);
  });

  test.each<[Parameters<typeof stateOfRunEnd>[0], string, number | null, string | null]>([
    [{ status: 'done' }, 'done', 0, 'done'],
    [{ status: 'done', review: true }, 'in-review', 3, 'review'],
    [{ status: 'rejected' }, 'rejected', 1, 'rejected'],
    [{ status: 'blocked' }, 'blocked', 3, 'blocked'],
    [{ status: 'stopped' }, 'stopped', 3, null],
    [{ status: 'interrupted' }, 'interrupted', 3, null],
  ])('a run that ends %j leaves its task %s: exit %s, notification %s', (result, state, exit, event) => {
    const ended = stateOfRunEnd(result);
    expect(ended).toBe(state);
    expect(STATE_TABLE[ended].exitCode).toBe(exit);
    expect(STATE_TABLE[ended].event).toBe(event);
  });
});

describe('the README says every state', () => {
  test('each state word is in the README, in the table order', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    let from = 0;
    for (const state of TASK_STATES) {
      const at = readme.indexOf(`\`${stateWord(state)}\``, from);
      expect(at, `README names ${stateWord(state)} after the states before it`).toBeGreaterThan(-1);
      from = at;
    }
  });
});
