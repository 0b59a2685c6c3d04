import { describe, expect, test } from 'vitest';
import { WiggumError } from '../../src/errors.js';
import { describeErrorChain, redact } from '../../src/loop/error-chain.js';

const FRAME = /^ {4}at .+:\d+:\d+\)?$/;
const heads = (text: string): string[] => text.split('\n').filter((line) => !line.startsWith('    '));

function parseFailure(): WiggumError {
  try {
    JSON.parse('{broken');
  } catch (cause) {
    return new WiggumError('E_MEMORY_CORRUPT', 'prd.json: not valid JSON', { cause });
  }
  throw new Error('unreachable: the text parsed');
}

describe('describeErrorChain', () => {
  test('the error, then each cause, each with its code and its own stack frames', () => {
    const text = describeErrorChain(parseFailure());
    const lines = text.split('\n');
    expect(lines[0]).toBe('WiggumError E_MEMORY_CORRUPT: prd.json: not valid JSON');
    const caused = lines.findIndex((line) => line.startsWith('Caused by: SyntaxError: '));
    expect(caused).toBeGreaterThan(1);
    // Frames of this test file, with line and column, under both errors.
    expect(lines.slice(1, caused).filter((line) => FRAME.test(line)).length).toBeGreaterThanOrEqual(2);
    expect(lines.slice(caused + 1).some((line) => line.includes('error-chain.test.ts:'))).toBe(true);
  });

  test('a cycle of causes is cut where it repeats, and a deep chain where it gets long', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(heads(describeErrorChain(a))).toEqual([
      'Error: a',
      'Caused by: Error: b',
      'Caused by: (the chain repeats from here)',
    ]);

    let deep: Error = new Error('root');
    for (let i = 0; i < 10; i += 1) deep = new Error(`level ${i}`, { cause: deep });
    const shown = heads(describeErrorChain(deep));
    expect(shown).toHaveLength(7);
    expect(shown.at(-1)).toBe('Caused by: … (more causes not shown)');
  });

  test('a thrown value that is not an Error is shown as such, without a stack', () => {
    const error = new WiggumError('E_INTERNAL', 'wrapped', { cause: { odd: 1 } });
    expect(describeErrorChain(error)).toContain('Caused by: {"odd":1} (thrown as a object, so no stack)');
  });

  test('the secret values are redacted wherever they appear', () => {
    const secrets = ['sk-live-123456', 'hunter2-long', 'ghp_abcdef'];
    const error = new WiggumError('E_HARNESS_SPAWN', 'the answer quoted sk-live-123456 and hunter2-long', {
      cause: new Error('token ghp_abcdef in /home/someone'),
    });
    const text = describeErrorChain(error, secrets);
    expect(text).not.toMatch(/sk-live-123456|hunter2-long|ghp_abcdef/);
    expect(text).toContain('the answer quoted [redacted] and [redacted]');
    // Not a credential: a path is kept.
    expect(text).toContain('/home/someone');
    expect(redact('abc abc', ['abc'])).toBe('abc abc');
  });
});
