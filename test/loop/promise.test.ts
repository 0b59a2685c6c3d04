import { describe, expect, test } from 'vitest';
import { PromiseScanner, containsPromise } from '../../src/loop/promise.js';

const prompt =
  'Rules...\n9. Only when every story passes, end your reply with <promise>COMPLETE</promise>\n   Never print it otherwise.\n';

describe('PromiseScanner', () => {
  test.each([
    ['plain', 'done\n<promise>COMPLETE</promise>\n', true],
    ['newlines around the text', '<promise>\nCOMPLETE\n</promise>', true],
    ['spaces and tabs', '<promise>  \t COMPLETE \n\n </promise>', true],
    ['another text', '<promise>DONE</promise>', false],
    ['text inside a longer word', '<promise>COMPLETELY</promise>', false],
    ['no closing tag', '<promise>COMPLETE', false],
    ['nothing', 'working on US-002', false],
  ])('%s', (_name, output, expected) => {
    expect(new PromiseScanner('COMPLETE', prompt).push(output)).toBe(expected);
  });

  test('an echo of the prompt does not count', () => {
    const scanner = new PromiseScanner('COMPLETE', prompt);
    expect(scanner.push(`You said:\n${prompt}I will start with US-001.\n`)).toBe(false);
  });

  test('an echo with its whitespace reflowed does not count either', () => {
    const scanner = new PromiseScanner('COMPLETE', prompt);
    expect(scanner.push(prompt.replace(/\n/g, '\r\n').replace(/ {3}/g, ' '))).toBe(false);
  });

  test('a real promise after an echo counts', () => {
    const scanner = new PromiseScanner('COMPLETE', prompt);
    expect(scanner.push(prompt)).toBe(false);
    expect(scanner.push('All stories pass.\n<promise>COMPLETE</promise>\n')).toBe(true);
  });

  test('a promise split across chunks, even one character at a time', () => {
    const scanner = new PromiseScanner('COMPLETE', prompt);
    const output = 'finished\n<promise>\n  COMPLETE\n</promise>\n';
    let found = false;
    for (const ch of output) found = scanner.push(ch);
    expect(found).toBe(true);
  });

  test('a promise early in a flood of later output', () => {
    const scanner = new PromiseScanner('COMPLETE', prompt);
    scanner.push('<promise>COMPLETE</promise>\n');
    for (let i = 0; i < 1000; i += 1) scanner.push('x'.repeat(10_000));
    expect(scanner.detected).toBe(true);
  });

  test('a custom promise with regex characters is matched literally', () => {
    expect(new PromiseScanner('ALL DONE (v1.2)', '').push('<promise>ALL DONE (v1.2)</promise>')).toBe(true);
    expect(new PromiseScanner('ALL DONE (v1.2)', '').push('<promise>ALL DONE (v1x2)</promise>')).toBe(false);
  });
});

test('containsPromise reads a final message', () => {
  expect(containsPromise('Done.\n<promise>\nCOMPLETE\n</promise>', 'COMPLETE')).toBe(true);
  expect(containsPromise('Not yet.', 'COMPLETE')).toBe(false);
});
