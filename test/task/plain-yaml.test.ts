import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, test } from 'vitest';
import { readPlainYaml } from '../../src/task/plain-yaml.js';

/** Wherever the plain reader answers, it must answer what the YAML parser does. */
function agrees(yaml: string): 'read' | 'declined' {
  const plain = readPlainYaml(yaml.split('\n'));
  if (plain === undefined) return 'declined';
  expect(plain).toEqual(parse(yaml) ?? {});
  return 'read';
}

describe('readPlainYaml', () => {
  test.each([
    [
      'the checkpoint wiggum writes',
      'state: Approved # folder\npersistence_loop:   # owned by wiggum\n  status: running\n  session: 538453d7-9d1f-4f6e-8a51-000000000007\n  started: 2026-01-27T10:05:00Z\n  iteration: 7\n  max_iterations: 20\n  checkpoint:\n    completed_steps: [US-001, US-002]\n    current_step: null\n    state_data: {attempt: 0, active_ms: 180259, warned: false}\n    timestamp: 2026-01-27T11:42:13Z\n',
    ],
    [
      'block state data, empty list, null step',
      'persistence_loop:\n  checkpoint:\n    completed_steps: []\n    current_step:\n    state_data:\n      attempt: 2\n      last_outcome: nonzero-exit\n',
    ],
    ['an empty value', 'state:\npersistence_loop:\n'],
    ['a JSON-like quoted string', 'a: "rate limited: 429 \\"quoted\\" \\u00e9"\n'],
    ['CRLF lines', 'state: Done\r\niteration: 3\r\n'],
    ['negative and zero integers', 'a: -4\nb: 0\nc: -0\n'],
    ['words that start with a digit', 'a: 538453d7\nb: 3rd-try\nc: 0b63cb0f-9d1f-4f6e\nd: 0x1Fg\n'],
    ['quoted strings with commas and colons in a flow map', 'a: {b: "x, y", c: "rate limited: 429", d: 1}\n'],
    ['a trailing comment after a flow list', 'a: [US-001, "US 2"]   # done\n'],
    ['nested flow collections', 'a: [[1], 2, {b: [x, "y, z"]}]\nc: {d: {e: {f: 1}}}\n'],
    ['plain decimals', 'a: 1.5\nb: -0.25\nc: 1.0\nd: 0.123456\n'],
    [
      'the totals a checkpoint keeps',
      '    state_data: {attempt: 0, spent: {input_tokens: 1200, output_tokens: 80, cost_usd: 0.012345, agent_ms: 1259, peak_rss_mb: 64.5}}\n',
    ],
  ])('reads %s exactly as YAML does', (_name, yaml) => {
    expect(agrees(yaml)).toBe('read');
  });

  test.each([
    ['a float with no digit before its point', 'a: .5\n'],
    ['a float with no digit after its point', 'a: 1.\n'],
    ['a float with a plus sign', 'a: +1.5\n'],
    ['a float with an underscore', 'a: 1_000.5\n'],
    ['a float as an exponent', 'a: 1e3\n'],
    ['hex', 'a: 0x1F\n'],
    ['octal', 'a: 0o17\n'],
    ['binary, as YAML 1.1 reads it', 'a: 0b101\n'],
    ['a number with a leading zero', 'a: 007\n'],
    ['an infinite value', 'a: .inf\n'],
    ['a capitalised boolean', 'a: True\n'],
    ['NULL', 'a: NULL\n'],
    ['a big integer', 'a: 123456789012345678901234567890\n'],
    ['a plain scalar with spaces', 'a: two words\n'],
    ['a colon in a plain scalar', 'a: rate limited: 429\n'],
    ['single quotes', "a: 'it''s'\n"],
    ['a YAML-only escape', 'a: "bell \\a"\n'],
    ['flow collections nested too deep', 'a: [[[[[1]]]]]\n'],
    ['an unbalanced nested flow map', 'a: {b: {c: 1}\n'],
    ['a flow map closed by a bracket', 'a: {b: [1}]\n'],
    ['an unclosed quote in a flow list', 'a: ["x, y]\n'],
    ['an empty item in a flow list', 'a: [x, , y]\n'],
    ['a block list', 'a:\n  - one\n'],
    ['an anchor', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a multi-line plain scalar', 'a: one\n  two\n'],
    ['a literal block', 'a: |\n  text\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['__proto__', '__proto__: 1\n'],
    ['a tab in the indentation', 'a:\n\tb: 1\n'],
    ['a comment hash inside a quoted string', 'a: "x # y"\n'],
    ['a bad indentation', 'a:\n    b: 1\n  c: 2\n'],
  ])('declines %s (the YAML parser takes over)', (_name, yaml) => {
    expect(agrees(yaml)).toBe('declined');
  });

  test('every checkpoint in the round-trip corpus is read as YAML reads it', () => {
    const dir = join(import.meta.dirname, '..', 'fixtures', 'roundtrip', 'expected');
    let read = 0;
    for (const name of readdirSync(dir)) {
      const text = readFileSync(join(dir, name), 'utf8');
      const start = text.indexOf('persistence_loop:');
      const block = text.slice(start).split(/\r?\n/);
      const end = block.findIndex((line, i) => i > 0 && /^\S/.test(line));
      if (agrees(block.slice(0, end).join('\n')) === 'read') read += 1;
    }
    expect(read).toBeGreaterThan(0);
  });
});
