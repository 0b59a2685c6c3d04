import { describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import type { Task } from '../../src/task/parse.js';
import { withOwnedKeys } from '../../src/task/render.js';
import type { OwnedKeys, PersistenceLoopData } from '../../src/task/render.js';
import { splicedTask } from '../../src/task/spliced-task.js';

const FILE = '/vault/Approved/dark-mode.md';

function parsed(text: string): Task {
  const result = parseTask(FILE, text, { ownedKeysReplaceable: true });
  if (!result.ok) throw new Error(result.problems.map((problem) => problem.message).join('; '));
  return result.task;
}

function loop(iteration: number, extra: Partial<PersistenceLoopData> = {}): PersistenceLoopData {
  return {
    status: 'running',
    session: 'dark-mode',
    started: '2026-01-02T03:04:05Z',
    updated: `2026-01-02T03:0${iteration % 10}:05Z`,
    iteration,
    max_iterations: 20,
    checkpoint: { completed_steps: iteration > 1 ? ['US-001'] : [], current_step: 'US-002' },
    ...extra,
  };
}

/** A task as wiggum's checkpoints leave it: the user's text with two checkpoints written by the full parse. */
function checkpointed(text: string, first: OwnedKeys = { state: 'Approved', persistence_loop: loop(0) }): Task {
  const once = parsed(withOwnedKeys(parsed(text), first));
  return parsed(withOwnedKeys(once, { state: 'Approved', persistence_loop: loop(1) }));
}

const BODY = '# Dark mode\n\n- [ ] US-001 Theme\n  - the toggle persists\n- [x] US-002 Icons\n';

describe('splicedTask: the parse of a checkpoint, derived, equals the parse of its text', () => {
  const rows: { name: string; task: () => Task; keys: OwnedKeys }[] = [
    {
      name: 'a plain task, next iteration',
      task: () => checkpointed(`---\ntitle: Dark mode\nharness: demo\n---\n${BODY}`),
      keys: { state: 'Approved', persistence_loop: loop(2) },
    },
    {
      name: 'the block grows by lines (exit reason, state data)',
      task: () => checkpointed(`---\ntitle: Dark mode\n---\n${BODY}`),
      keys: {
        state: 'Approved',
        persistence_loop: loop(3, {
          status: 'waiting',
          exit_reason: 'E_USAGE_LIMIT',
          checkpoint: { completed_steps: ['US-001', 'US-002'], state_data: { attempt: 2, waiting_for: 'usage-limit' } },
        }),
      },
    },
    {
      name: 'the block shrinks (no checkpoint map)',
      task: () => checkpointed(`---\ntitle: Dark mode\n---\n${BODY}`),
      keys: { state: 'Approved', persistence_loop: { status: 'running', iteration: 4, max_iterations: 20 } },
    },
    {
      name: 'user keys after the block move down with it',
      task: () => {
        const task = checkpointed(`---\ntitle: Dark mode\n---\n${BODY}`);
        return parsed(task.text.replace('---\n# Dark', 'priority: high # bumped\ntags: [ui, theme]\n---\n# Dark'));
      },
      keys: {
        state: 'Approved',
        persistence_loop: loop(5, { checkpoint: { completed_steps: ['US-001', 'US-002', 'US-003'] } }),
      },
    },
    {
      name: 'wiggum keys first, the user keys after, comments kept',
      task: () =>
        checkpointed(
          `---\nstate: Approved # set by wiggum\npersistence_loop:\n  status: running\n  iteration: 0\n  max_iterations: 20\nnote: "user text ☕ stays"   # a comment stays too\nharness: demo\n---\n${BODY}`,
        ),
      keys: {
        state: 'Approved',
        persistence_loop: loop(6, { exit_reason: 'E_NO_PROGRESS', ended: '2026-01-02T04:00:00Z' }),
      },
    },
    {
      name: 'CRLF line endings',
      task: () => checkpointed(`---\r\ntitle: Dark mode\r\nharness: demo\r\n---\r\n${BODY.replace(/\n/g, '\r\n')}`),
      keys: { state: 'Approved', persistence_loop: loop(7, { checkpoint: { completed_steps: ['US-001', 'US-002'] } }) },
    },
    {
      name: 'a byte-order mark and an id of its own',
      task: () => checkpointed(`\uFEFF---\nid: dark-mode-2\ntitle: Dark mode\n---\n${BODY}`),
      keys: { state: 'Approved', persistence_loop: loop(8) },
    },
    {
      name: 'state quoted by another program',
      task: () =>
        parsed(
          checkpointed(`---\ntitle: Dark mode\n---\n${BODY}`).text.replace('state: Approved', 'state: "Approved"'),
        ),
      keys: { state: 'Approved', persistence_loop: loop(9) },
    },
    {
      name: 'a user key with a multi-line value after the block',
      task: () =>
        parsed(
          checkpointed(`---\ntitle: Dark mode\n---\n${BODY}`).text.replace(
            '---\n# Dark',
            'notes: |\n  line one\n  line two\nworkdir: /src\n---\n# Dark',
          ),
        ),
      keys: { state: 'Approved', persistence_loop: loop(10) },
    },
  ];

  test.each(rows)('$name', ({ task, keys }) => {
    const before = task();
    const next = withOwnedKeys(before, keys);
    const derived = splicedTask(before, keys, next);
    expect(derived).not.toBeNull();
    const reparsed = parseTask(FILE, next, { ownedKeysReplaceable: true });
    expect(reparsed.ok).toBe(true);
    expect(derived).toEqual(reparsed.ok ? reparsed.task : null);
  });
});

describe('splicedTask: shapes it leaves to the full parse', () => {
  const user = `---\ntitle: Dark mode\n---\n${BODY}`;
  const rows: { name: string; task: () => Task; keys: OwnedKeys }[] = [
    {
      name: 'the first checkpoint (no keys of wiggum yet)',
      task: () => parsed(user),
      keys: { state: 'Approved', persistence_loop: loop(0) },
    },
    {
      name: 'a comment line right after the block',
      task: () => parsed(checkpointed(user).text.replace('---\n# Dark', '# about the loop\ntags: [a]\n---\n# Dark')),
      keys: { state: 'Approved', persistence_loop: loop(2) },
    },
    {
      name: 'persistence_loop rewritten as a flow mapping',
      task: () =>
        parsed(
          `---\ntitle: Dark mode\nstate: Approved\npersistence_loop: {status: running, iteration: 1, max_iterations: 20}\n---\n${BODY}`,
        ),
      keys: { state: 'Approved', persistence_loop: loop(2) },
    },
    {
      name: 'state written as a block value',
      task: () => parsed(checkpointed(user).text.replace('state: Approved', 'state:\n  Approved')),
      keys: { state: 'Approved', persistence_loop: loop(2) },
    },
    {
      name: 'the key removed (a fresh start)',
      task: () => checkpointed(user),
      keys: { state: 'Approved', persistence_loop: null },
    },
    {
      name: 'only the state written',
      task: () => checkpointed(user),
      keys: { state: 'Done' },
    },
  ];

  test.each(rows)('$name', ({ task, keys }) => {
    const before = task();
    expect(splicedTask(before, keys, withOwnedKeys(before, keys))).toBeNull();
  });

  test('a text other than the splice of these keys', () => {
    const before = checkpointed(user);
    const keys: OwnedKeys = { state: 'Approved', persistence_loop: loop(2) };
    expect(splicedTask(before, keys, `${withOwnedKeys(before, keys)}\nmore`)).toBeNull();
  });
});
