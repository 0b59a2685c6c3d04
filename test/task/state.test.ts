import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import { readTaskState } from '../../src/task/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const corpus = join(import.meta.dirname, '..', 'fixtures', 'roundtrip');
const files = [
  ...readdirSync(corpus)
    .filter((n) => n.endsWith('.md'))
    .map((n) => join(corpus, n)),
  ...readdirSync(join(corpus, 'expected')).map((n) => join(corpus, 'expected', n)),
];

function fullState(file: string, text = readFileSync(file, 'utf8')): unknown {
  const parsed = parseTask(file, text);
  if (!parsed.ok) return null;
  const loop = parsed.task.frontmatter.persistence_loop;
  const harness = parsed.task.frontmatter.harness;
  return {
    ...(harness === undefined ? {} : { harness }),
    file,
    id: parsed.task.id,
    state: parsed.task.frontmatter.state,
    loop:
      loop === undefined
        ? undefined
        : {
            status: loop.status,
            iteration: loop.iteration,
            max_iterations: loop.max_iterations,
            current_step: loop.checkpoint?.current_step ?? null,
            updated: loop.updated,
            session: loop.session,
          },
  };
}

describe('readTaskState', () => {
  test.each(files)('agrees with the full parse: %s', async (file) => {
    expect(await readTaskState(file)).toEqual(fullState(file));
  });

  test.each([
    [
      'a repeated checkpoint key (the full parse refuses it)',
      '---\npersistence_loop:\n  status: running\n  iteration: 1\n  max_iterations: 3\npersistence_loop: {}\n---\n',
      null,
    ],
    ['a flow-style frontmatter', '---\n{state: Approved}\n---\n', null],
    [
      'a checkpoint that does not check',
      '---\npersistence_loop:\n  status: sideways\n  iteration: 1\n  max_iterations: 3\n---\n',
      null,
    ],
    ['a complex key', '---\n? [a, b]\n: c\nstate: Done\n---\n', null],
  ])('falls back to the full parse for %s', async (_name, text, expected) => {
    const file = join(tempDir(), 'task.md');
    writeFileSync(file, text);
    expect(await readTaskState(file)).toEqual(expected ?? fullState(file, text));
  });

  test('a file that is gone or not a task is null', async () => {
    const dir = tempDir();
    expect(await readTaskState(join(dir, 'missing.md'))).toBeNull();
    writeFileSync(join(dir, 'binary.md'), Buffer.from([0, 1, 2]));
    expect(await readTaskState(join(dir, 'binary.md'))).toBeNull();
  });
});
