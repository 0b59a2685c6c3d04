import { describe, expect, test } from 'vitest';
import { REDACTED, SecretMask } from '../src/secret-mask.js';

const KEY = 'sk-UT0123456789abcdefghij';
const TOKEN = 'dpl_ZYXWVUTSRQPONM';
const mask = new SecretMask([KEY, TOKEN, 'short7x', `${KEY}-extended`]);

describe('SecretMask.text', () => {
  test.each([
    ['a value alone', KEY, REDACTED],
    ['a value inside a sentence', `key=${KEY}, token ${TOKEN}.`, `key=${REDACTED}, token ${REDACTED}.`],
    ['a longer value holding another is hidden whole', `${KEY}-extended!`, `${REDACTED}!`],
    ['a value twice', `${TOKEN}${TOKEN}`, `${REDACTED}${REDACTED}`],
    ['a value under 8 characters is kept', 'pin short7x', 'pin short7x'],
    ['text without values is the same', 'nothing here', 'nothing here'],
    ['a value with regex characters', 'a+b(c)*d? x', 'a+b(c)*d? x'],
  ])('%s', (_, text, masked) => {
    expect(mask.text(text)).toBe(masked);
  });

  test('regex characters in a value are taken literally', () => {
    expect(new SecretMask(['a+b(c)*d?']).text('x a+b(c)*d? y')).toBe(`x ${REDACTED} y`);
  });

  test('no values: nothing changes', () => {
    expect(SecretMask.none.text(KEY)).toBe(KEY);
    expect(SecretMask.none.empty).toBe(true);
  });
});

describe('SecretMask.json', () => {
  test('every string inside, keys too; other values kept', () => {
    const doc = {
      event: 'rejected',
      reason: `bad ${KEY}`,
      list: [TOKEN, 3, null],
      [TOKEN]: true,
      nested: { ok: false },
    };
    expect(mask.json(doc)).toEqual({
      event: 'rejected',
      reason: `bad ${REDACTED}`,
      list: [REDACTED, 3, null],
      [REDACTED]: true,
      nested: { ok: false },
    });
  });
});

describe('MaskedStream', () => {
  const run = (chunks: string[]): { parts: string[]; all: string } => {
    const stream = mask.stream();
    const parts = chunks.map((chunk) => stream.push(Buffer.from(chunk)).toString());
    parts.push(stream.end().toString());
    return { parts, all: parts.join('') };
  };

  test.each([
    ['one chunk', [`a ${KEY} b\n`]],
    ['cut in the middle', [`session key: ${KEY.slice(0, 13)}`, `${KEY.slice(13)} (resumed)\n`]],
    ['cut after its first character', [`x ${KEY.slice(0, 1)}`, `${KEY.slice(1)}\n`]],
    ['cut before its last character', [`x ${KEY.slice(0, -1)}`, `${KEY.slice(-1)}\n`]],
    ['one character a chunk', [...`[${TOKEN}]\n`]],
  ])('a value %s never shows, in any chunk', (_, chunks) => {
    const { parts, all } = run(chunks);
    expect(all).toBe(chunks.join('').replaceAll(KEY, REDACTED).replaceAll(TOKEN, REDACTED));
    for (const part of parts) {
      expect(part).not.toContain(KEY.slice(0, 12));
      expect(part).not.toContain(TOKEN.slice(0, 12));
    }
  });

  test('a line ending in a newline is shown at once, nothing held', () => {
    const stream = mask.stream();
    expect(stream.push(Buffer.from('plain line\n')).toString()).toBe('plain line\n');
    expect(stream.end().length).toBe(0);
  });

  test('what looked like a start of a value but was not is let go by the next chunk', () => {
    const stream = mask.stream();
    expect(stream.push(Buffer.from('see sk-UT01')).toString()).toBe('see ');
    expect(stream.push(Buffer.from(' and more\n')).toString()).toBe('sk-UT01 and more\n');
  });

  test('the held start of a value comes out at the end of the stream', () => {
    const stream = mask.stream();
    expect(stream.push(Buffer.from('tail sk-UT')).toString()).toBe('tail ');
    expect(stream.end().toString()).toBe('sk-UT');
  });

  test('multi-byte characters cut across chunks come through intact', () => {
    const bytes = Buffer.from(`café 日本語 ${KEY} 🚀\n`);
    const stream = mask.stream();
    const out = Buffer.concat([...bytes].map((byte) => stream.push(Buffer.from([byte]))).concat(stream.end()));
    expect(out.toString()).toBe(`café 日本語 ${REDACTED} 🚀\n`);
  });
});
