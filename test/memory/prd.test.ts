import { describe, expect, test } from 'vitest';
import { isWiggumError } from '../../src/errors.js';
import type { WiggumError } from '../../src/errors.js';
import { jsonErrorOffset } from '../../src/memory/json-text.js';
import { buildPrd, firstParagraph, parsePrd, serializePrd, storySummary } from '../../src/memory/prd.js';
import type { Prd } from '../../src/memory/prd.js';
import { parseChecklist } from '../../src/task/stories.js';

function corruptError(run: () => unknown): WiggumError {
  try {
    run();
  } catch (error) {
    if (isWiggumError(error, 'E_MEMORY_CORRUPT')) return error;
    throw error;
  }
  throw new Error('expected E_MEMORY_CORRUPT');
}

describe('buildPrd', () => {
  test('one story per checklist item, with ids, priorities, checked items passing and acceptance criteria', () => {
    const body = [
      'Build the login flow.',
      '',
      '- [ ] US-010: Add the login form',
      '  - shows an error for a wrong password',
      '  - remembers the user name',
      '- [x] Set up the database',
      '- [ ] AUTH-3 Issue tokens',
      '',
    ].join('\n');
    const prd = buildPrd({
      taskId: 'login',
      title: 'Login',
      branchName: 'wiggum/login',
      description: body,
      stories: parseChecklist(body),
    });
    expect(prd.projectName).toBe('Login');
    expect(prd.branchName).toBe('wiggum/login');
    expect(prd.description).toBe('Build the login flow.');
    expect(prd.userStories).toEqual([
      {
        id: 'US-010',
        title: 'Add the login form',
        priority: 1,
        passes: false,
        acceptanceCriteria: ['shows an error for a wrong password', 'remembers the user name'],
      },
      { id: 'US-002', title: 'Set up the database', priority: 2, passes: true, acceptanceCriteria: [] },
      { id: 'AUTH-3', title: 'Issue tokens', priority: 3, passes: false, acceptanceCriteria: [] },
    ]);
    // What it builds is what it reads back.
    expect(parsePrd(serializePrd(prd), 'prd.json')).toEqual(prd);
  });

  test("a task without a checklist has no stories: the agent's word (and the verify check) completes it", () => {
    const body = '# Heading\n\nMake the   dashboard\nload faster.\n\nSecond paragraph.\n';
    const prd = buildPrd({
      taskId: 'fast',
      title: 'Faster dashboard',
      branchName: null,
      description: body,
      stories: [],
    });
    expect(prd.branchName).toBeUndefined();
    expect(prd.userStories).toEqual([]);
    expect(prd.description).toBe('Make the dashboard load faster.');
  });

  test('the project name falls back to the task id, and the description is cut to about 500 characters', () => {
    const long = `${'word '.repeat(200)}end`;
    const prd = buildPrd({ taskId: 'task-7', title: '  ', description: long, stories: [] });
    expect(prd.projectName).toBe('task-7');
    expect(prd.description!.length).toBeLessThanOrEqual(501);
    expect(prd.description!.endsWith('…')).toBe(true);
  });
});

test('firstParagraph skips headings, checklists and code fences', () => {
  expect(firstParagraph('# T\n\n```\ncode\n\nmore code\n```\n\n- [ ] item\n\nProse here.')).toBe('Prose here.');
  expect(firstParagraph('')).toBe('');
});

describe('parsePrd', () => {
  test('keeps keys that agents and users add, at the top and in stories', () => {
    const text = JSON.stringify({
      userStories: [{ id: 'US-001', title: 't', priority: 1, passes: false, owner: 'me' }],
      custom: { a: 1 },
    });
    const prd = parsePrd(text, '/v/prd.json');
    expect(prd['custom']).toEqual({ a: 1 });
    expect(prd.userStories[0]!['owner']).toBe('me');
    expect(JSON.parse(serializePrd(prd))).toEqual(JSON.parse(text));
  });

  test('bad JSON names the file, the line and column, and never yields a default', () => {
    const text = '{\n  "userStories": [\n    {"id": "US-001" "title": "x"}\n  ]\n}\n';
    const error = corruptError(() => parsePrd(text, '/v/.wiggum/sessions/t/prd.json'));
    expect(error.message).toContain('/v/.wiggum/sessions/t/prd.json');
    expect(error.message).toContain('not valid JSON at line 3, column 21');
    expect(error.details).toMatchObject({ path: '/v/.wiggum/sessions/t/prd.json', line: 3, column: 21 });
  });

  test('an error V8 reports without a position is still located', () => {
    expect(jsonErrorOffset('{"a": }')).toBe(6);
    expect(jsonErrorOffset('{"a": 1}}')).toBe(8);
    const error = corruptError(() => parsePrd('{"userStories": ]}', 'p.json'));
    expect(error.message).toContain('line 1, column 17');
  });

  test('valid JSON of the wrong shape names the schema path and the problem', () => {
    const stories = [
      { id: 'US-001', title: 'a', priority: 1, passes: true },
      { id: 'US-002', title: 'b', priority: 2, passes: false },
      { id: 'US-003', title: 'c', priority: 3, passes: 'yes' },
    ];
    const error = corruptError(() => parsePrd(JSON.stringify({ userStories: stories }), '/v/prd.json'));
    expect(error.message).toMatch(/^\/v\/prd\.json: userStories\.2\.passes: .*expected boolean/);
  });

  test('a missing story list and a non-object are reported', () => {
    expect(corruptError(() => parsePrd('{}', 'p.json')).message).toContain('userStories');
    expect(corruptError(() => parsePrd('[]', 'p.json')).message).toContain('(top level)');
  });
});

test('storySummary counts passing stories and picks the lowest priority that does not pass', () => {
  const prd: Prd = {
    userStories: [
      { id: 'A', title: 'a', priority: 3, passes: false },
      { id: 'B', title: 'b', priority: 1, passes: true },
      { id: 'C', title: 'c', priority: 2, passes: false },
      { id: 'D', title: 'd', priority: 2, passes: false },
    ],
  };
  const summary = storySummary(prd);
  expect(summary.total).toBe(4);
  expect(summary.passing).toBe(1);
  expect(summary.nextStory?.id).toBe('C');
  expect(storySummary({ userStories: [{ id: 'A', title: 'a', priority: 1, passes: true }] }).nextStory).toBeNull();
});
