import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import type { Task } from '../../src/task/parse.js';
import { withOwnedKeys } from '../../src/task/render.js';
import type { OwnedKeys } from '../../src/task/render.js';

const corpus = join(import.meta.dirname, '..', 'fixtures', 'roundtrip');
const goldens = join(corpus, 'expected');
const files = readdirSync(corpus)
  .filter((name) => name.endsWith('.md'))
  .sort();

const checkpoint: OwnedKeys = {
  state: 'Done',
  persistence_loop: {
    status: 'done',
    session: '0f6c8e2a-1b7d-4c3e-9a55-2d4b8f1e7c90',
    started: '2026-01-27T10:05:00Z',
    updated: '2026-01-27T10:09:12Z',
    iteration: 7,
    max_iterations: 20,
    checkpoint: {
      completed_steps: ['US-001', 'US-002'],
      current_step: null,
      state_data: { attempt: 0, last_error: 'rate limited: 429' },
      timestamp: '2026-01-27T10:09:12Z',
    },
  },
};

const secondCheckpoint: OwnedKeys = {
  state: 'Rejected',
  persistence_loop: { status: 'rejected', iteration: 8, max_iterations: 20, exit_reason: 'max iterations' },
};

function mustParse(name: string, text: string): Task {
  const result = parseTask(name, text);
  if (!result.ok) throw new Error(`${name} did not parse: ${JSON.stringify(result.problems)}`);
  return result.task;
}

/** The text with wiggum's own pairs cut out: what must never change. */
function userBytes(task: Task): string {
  const ranges = [task.owned.state, task.owned.persistence_loop]
    .filter((r) => r !== undefined)
    .sort((a, b) => b.start - a.start);
  let text = task.text;
  for (const range of ranges) text = text.slice(0, range.start) + text.slice(range.end);
  return text;
}

function withoutOwnedData(data: Record<string, unknown>): Record<string, unknown> {
  const { state: _state, persistence_loop: _loop, ...rest } = data;
  return rest;
}

test('the corpus holds at least 20 task files', () => {
  expect(files.length).toBeGreaterThanOrEqual(20);
});

describe.each(files)('%s', (name) => {
  const text = readFileSync(join(corpus, name), 'utf8');
  const task = mustParse(name, text);

  test('serializing with no change gives back every byte', () => {
    expect(Buffer.from(withOwnedKeys(task, {}))).toEqual(Buffer.from(text));
  });

  test('writing a checkpoint matches the golden file', () => {
    const out = withOwnedKeys(task, checkpoint);
    const golden = join(goldens, name);
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(golden)) {
      mkdirSync(goldens, { recursive: true });
      writeFileSync(golden, out);
    }
    expect(Buffer.from(out)).toEqual(readFileSync(golden));
  });

  test('only wiggum keys change: every other byte, the body and the user data stay', () => {
    const out = mustParse(name, withOwnedKeys(task, checkpoint));
    const before = userBytes(task);
    const after = userBytes(out);
    if (task.layout.hasFrontmatter) {
      expect(after).toBe(before);
    } else {
      const bom = task.layout.bom ? '\ufeff' : '';
      const eol = task.layout.eol;
      expect(after).toBe(`${bom}---${eol}---${eol}${before.slice(bom.length)}`);
    }
    expect(out.body).toBe(task.body);
    expect(out.layout.eol).toBe(task.layout.eol);
    expect(out.layout.bom).toBe(task.layout.bom);
    expect(out.frontmatter.state).toBe('Done');
    expect(out.frontmatter.persistence_loop).toMatchObject({
      status: 'done',
      iteration: 7,
      checkpoint: { completed_steps: ['US-001', 'US-002'] },
    });
    const originalData = mustParse(name, text).frontmatter;
    expect(withoutOwnedData(out.frontmatter)).toEqual(withoutOwnedData(originalData));
  });

  test('a second checkpoint replaces the first in place and is idempotent', () => {
    const once = mustParse(name, withOwnedKeys(task, checkpoint));
    const twice = mustParse(name, withOwnedKeys(once, secondCheckpoint));
    expect(userBytes(twice)).toBe(userBytes(once));
    expect(twice.frontmatter.persistence_loop).toMatchObject({
      status: 'rejected',
      iteration: 8,
      exit_reason: 'max iterations',
    });
    expect(twice.frontmatter.persistence_loop?.checkpoint).toBeUndefined();
    expect(withOwnedKeys(twice, secondCheckpoint)).toBe(twice.text);
  });
});
