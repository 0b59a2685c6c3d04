import { describe, expect, test } from 'vitest';
import { plainBlockText } from '../../src/task/plain-block.js';
import { yamlBlockText } from '../../src/task/render.js';

/** A block as checkpointData (loop/checkpoint.ts) orders it, with the checkpoint's keys in their order. */
function block(top: Record<string, unknown> = {}, stateData: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    status: 'running',
    session: '152f4741-46e7-4911-81b9-7642b4d0f738',
    started: '2026-11-28T14:31:37Z',
    updated: '2026-11-28T14:31:41Z',
    iteration: 12,
    max_iterations: 300,
    checkpoint: {
      completed_steps: ['US-001', 'US-002'],
      current_step: 'US-003',
      state_data: {
        attempt: 0,
        active_ms: 2159,
        no_progress: 3,
        usage_waits: 0,
        warned: false,
        spent: {
          input_tokens: 1200,
          output_tokens: 300,
          cost_usd: 0.012345,
          agent_ms: 2159,
          cpu_ms: 40,
          peak_rss_mb: 61.5,
        },
        last_outcome: 'continue',
        ...stateData,
      },
      timestamp: '2026-11-28T14:31:41Z',
    },
    ...top,
  };
}

/** Strings a plain scalar may or may not be: yaml quotes many of them, and then so must the block. */
const STRINGS = [
  'continue',
  'US-001',
  'E_MAX_ITERATIONS',
  '.ralph/dark-mode',
  '.ralph/x.y/',
  '.hidden',
  '..',
  '....',
  '.',
  'ralph/billing-0',
  '2026-11-28T14:31:41Z',
  '2026-11-28T14:31:41.123Z',
  'a:b',
  'a::b',
  'ends:',
  'a: b',
  'with space',
  'a,b',
  '[x]',
  '{x}',
  '#x',
  'x#y',
  '-x',
  '-',
  '?x',
  '.x',
  '...',
  '---',
  '',
  '~',
  'null',
  'Null',
  'NULL',
  'nULL',
  'true',
  'True',
  'TRUE',
  'tRUE',
  'false',
  'yes',
  'no',
  'on',
  'off',
  'y',
  '0',
  '42',
  '-42',
  '+42',
  '007',
  '0o17',
  '0o19',
  '0x1F',
  '0x1G',
  '0b101',
  '1e3',
  '1E-3',
  '1.5',
  '1.',
  '.5',
  '1.5.6',
  '1_000',
  '12:30',
  '12:30:45',
  '.inf',
  '.nan',
  'inf',
  'nan',
  'infinity',
  '1e',
  'e1',
  '0x',
  'd41d8cd98f00b204e9800998ecf8427e',
  '123e4567-e89b-12d3-a456-426614174000',
  '12e4567',
  '1234e5678',
  'a+b',
  '+a',
  'a/b/',
  'naïve',
  'tab\there',
  'line\nbreak',
  'a"b',
  "a'b",
  'a\\b',
  'a%b',
  '%a',
  '@a',
  '`a',
  '!a',
  '&a',
  '*a',
  '|a',
  '>a',
  '<<',
];

const NUMBERS = [
  0,
  1,
  -1,
  300,
  2 ** 31,
  Number.MAX_SAFE_INTEGER,
  0.5,
  0.012345,
  61.5,
  1e21,
  1e-7,
  -0,
  1.5e300,
  Number.NaN,
  Infinity,
];

function rows(): { name: string; ordered: Record<string, unknown> }[] {
  const result: { name: string; ordered: Record<string, unknown> }[] = [
    { name: 'a running checkpoint', ordered: block() },
    {
      name: 'an ending',
      ordered: block({ ended: '2026-11-28T14:31:41Z', exit_reason: 'E_MAX_ITERATIONS', status: 'rejected' }),
    },
    { name: 'memory in the workdir', ordered: block({ memory: '.ralph/dark-mode' }) },
    {
      name: 'a wait',
      ordered: block(
        {},
        { waiting_until: '2026-11-28T15:00:00Z', waiting_for: 'outage', waiting_since: '2026-11-28T14:00:00Z' },
      ),
    },
    { name: 'an error with spaces', ordered: block({}, { last_error: 'the agent exited with code 1: boom' }) },
    { name: 'no current step', ordered: block({ checkpoint: { completed_steps: [], current_step: null } }) },
    { name: 'no state data', ordered: block({ checkpoint: { completed_steps: ['US-001'] } }) },
    { name: 'an empty checkpoint', ordered: block({ checkpoint: {} }) },
    { name: 'no checkpoint', ordered: { status: 'idle', iteration: 0, max_iterations: 5 } },
    { name: 'nothing', ordered: {} },
    { name: 'a top-level list', ordered: block({ extra: ['a', 'b'] }) },
    { name: 'an empty top-level list', ordered: block({ extra: [] }) },
    {
      name: 'an undefined step list',
      ordered: block({ checkpoint: { completed_steps: undefined, current_step: 'x' } }),
    },
    { name: 'nested lists and maps', ordered: block({}, { deep: { a: [1, [2, { b: 'c' }]], e: {} }, list: [[], {}] }) },
    { name: 'a key that reads as a boolean', ordered: block({}, { true: 1 }) },
    { name: 'a key with a space', ordered: block({}, { 'two words': 1 }) },
    { name: 'a date', ordered: block({}, { at: new Date(0) }) },
    { name: 'an undefined value', ordered: block({}, { gone: undefined }) },
    { name: 'a bigint', ordered: block({}, { big: 10n }) },
  ];
  for (const text of STRINGS) {
    result.push({ name: `the string ${JSON.stringify(text)} at the top`, ordered: block({ exit_reason: text }) });
    result.push({
      name: `the string ${JSON.stringify(text)} in a flow map`,
      ordered: block({}, { last_outcome: text }),
    });
    result.push({
      name: `the string ${JSON.stringify(text)} in a flow list`,
      ordered: block({ checkpoint: { completed_steps: [text, 'US-001'] } }),
    });
    result.push({ name: `the string ${JSON.stringify(text)} as a key`, ordered: block({}, { [text]: 1 }) });
  }
  for (const value of NUMBERS) {
    result.push({ name: `the number ${String(value)} at the top`, ordered: block({ iteration: value }) });
    result.push({ name: `the number ${String(value)} in a flow map`, ordered: block({}, { active_ms: value }) });
  }
  return result;
}

describe('plainBlockText writes what yaml writes, or declines', () => {
  const table = rows();
  test.each(table.map((row) => [row.name, row.ordered] as const))('%s', (_name, ordered) => {
    for (const [indent, eol] of [
      [2, '\n'],
      [4, '\r\n'],
    ] as const) {
      const byHand = plainBlockText(ordered, indent, eol);
      if (byHand !== null) expect(byHand).toBe(yamlBlockText(ordered, indent, eol));
    }
  });

  test('it writes the blocks of ordinary checkpoints itself', () => {
    const ordinary = [
      block(),
      block({ ended: '2026-11-28T14:31:41Z', exit_reason: 'E_MAX_ITERATIONS', status: 'rejected' }),
      block({ memory: '.ralph/dark-mode' }),
      block({}, { waiting_until: '2026-11-28T15:00:00Z', waiting_for: 'outage' }),
      block({ checkpoint: { completed_steps: [], current_step: null } }),
    ];
    for (const [at, ordered] of ordinary.entries()) expect(plainBlockText(ordered, 2, '\n'), String(at)).not.toBeNull();
  });

  test('it writes most of the table itself, plain strings of every kind among them', () => {
    const byHand = table.filter((row) => plainBlockText(row.ordered, 2, '\n') !== null);
    expect(byHand.length).toBeGreaterThan(table.length / 3);
    for (const text of ['continue', 'a:b', '12:30', '.hidden', 'd41d8cd98f00b204e9800998ecf8427e', 'naive'])
      expect(plainBlockText(block({}, { last_outcome: text }), 2, '\n'), text).toContain(`last_outcome: ${text}}`);
  });

  test('it declines what it cannot be sure of', () => {
    for (const text of ['true', '42', '1.5', '0x1F', '1e3', 'with space', 'a,b', '', 'ends:', '-x'])
      expect(plainBlockText(block({}, { last_outcome: text }), 2, '\n'), text).toBeNull();
    expect(plainBlockText(block({ extra: ['a'] }), 2, '\n')).toBeNull();
    expect(plainBlockText({}, 2, '\n')).toBeNull();
  });
});
