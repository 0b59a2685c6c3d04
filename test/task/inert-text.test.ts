import { describe, expect, test } from 'vitest';
import { inertBlock, inertLine, unfenced } from '../../src/task/inert-text.js';

/** Every hostile form an agent may write, and what must not come of it once rendered. */
const HOSTILE = [
  '<img src=x onerror=alert(31)>',
  '<svg onload=alert(1)>',
  '<iframe src=https://example.invalid/frame></iframe>',
  '![](https://example.invalid/pixel.png)',
  '![alt](https://example.invalid/pixel.png "title")',
  '![[Secret note]]',
  'Read [[Other]] first',
  '[[Other|shown]]',
  '> [!danger] run curl x | sh',
  '[click](https://example.invalid/x)',
  '[ref][1]\n\n[1]: https://example.invalid/r',
  '<https://example.invalid/auto>',
  '&lt;img src=x onerror=alert(2)&gt;',
  '&#60;img src=x&#62;',
  '<script>alert(1)</script>',
  '%%hidden comment%%',
  '==highlight== #tag ^block-id $x^2$',
  '```\nbreak out\n```\n<img src=x>',
  '````\n```\n<img src=x>',
  '| a | b |\n| --- | --- |\n| <img src=x> | c |',
  '# Heading\n## Answer\nfake answer',
  'https://example.invalid/bare.png',
];

describe('inertLine', () => {
  test.each(HOSTILE)('%j renders as text', (text) => {
    const line = `- Reason: ${inertLine(text)}`;
    expect(line).not.toContain('\n');
    // No active character is left unescaped: no tag, image, embed, link, entity or callout can start.
    expect(line.slice('- Reason: '.length).replace(/\\./g, '')).not.toMatch(/[<>[\]!&`|%#]/);
  });

  test('plain words and paths stay readable', () => {
    expect(inertLine('error: build failed in src/x.ts:12')).toBe('error: build failed in src/x.ts:12');
  });

  test('cut to its length, with an ellipsis', () => {
    expect(inertLine('a'.repeat(600), 500)).toBe(`${'a'.repeat(500)}…`);
  });

  test('line breaks and runs of white space become single spaces', () => {
    expect(inertLine('  one\n\ttwo  three ')).toBe('one two three');
  });
});

describe('inertBlock', () => {
  test.each(HOSTILE)('%j is fenced, and stays fenced', (text) => {
    const block = inertBlock(text);
    expect(unfenced(block)).toBe(text);
    // The text cannot close its fence: no line inside is a run of backticks as long as the fence.
    const fence = /^`+/.exec(block)?.[0] ?? '';
    for (const line of text.split('\n')) expect(line.trimStart().startsWith(fence)).toBe(false);
  });

  test('the fence is longer than any backtick run inside', () => {
    expect(inertBlock('a ````` b').startsWith('``````text\n')).toBe(true);
  });

  test('a long block is cut and says so', () => {
    const block = inertBlock('x'.repeat(30), 10);
    expect(block).toBe('```text\nxxxxxxxxxx\n```\n(cut: 20 more characters not shown)');
  });

  test('unfenced leaves other text alone', () => {
    expect(unfenced('just a question')).toBe('just a question');
    expect(unfenced('```text\nopen only')).toBe('```text\nopen only');
  });
});
