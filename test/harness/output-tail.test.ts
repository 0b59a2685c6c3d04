import { describe, expect, test } from 'vitest';
import { OutputTail } from '../../src/harness/output-tail.js';

describe('OutputTail', () => {
  test('keeps everything while under capacity', () => {
    const tail = new OutputTail(16);
    tail.push(Buffer.from('abc'));
    tail.push(Buffer.from('def'));
    expect(tail.text()).toBe('abcdef');
    expect(tail.size).toBe(6);
  });

  test('keeps the last bytes across wrap-arounds, for any chunking', () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    for (const chunkSize of [1, 3, 7, 10, 11, 64, 1000]) {
      const tail = new OutputTail(10);
      for (let at = 0; at < text.length; at += chunkSize) tail.push(Buffer.from(text.slice(at, at + chunkSize)));
      expect(tail.text()).toBe(text.slice(-10));
      expect(tail.size).toBe(10);
    }
  });

  test('a chunk larger than the capacity keeps its end', () => {
    const tail = new OutputTail(4);
    tail.push(Buffer.from('xy'));
    tail.push(Buffer.from('0123456789'));
    expect(tail.text()).toBe('6789');
  });

  test('drops characters cut by either edge of the window', () => {
    const tail = new OutputTail(6);
    tail.push(Buffer.from('a✓b✓')); // ✓ is 3 bytes: the window keeps the last 2 bytes of the first one
    expect(tail.bytes()).toHaveLength(6);
    expect(tail.text()).toBe('b✓');
    const open = new OutputTail(8);
    open.push(Buffer.concat([Buffer.from('ok '), Buffer.from('🚀').subarray(0, 2)])); // a character still arriving
    expect(open.text()).toBe('ok ');
  });

  test('a zero capacity keeps nothing', () => {
    const tail = new OutputTail(0);
    tail.push(Buffer.from('abc'));
    expect(tail.text()).toBe('');
  });
});

describe('OutputTail growing', () => {
  test('holds the same bytes as a full ring for any chunking, while it grows and once it is full', () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i} ✓`).join('\n');
    for (const capacity of [1, 5, 255, 256, 257, 1000, 5000, 100_000]) {
      for (const chunkSize of [1, 2, 7, 100, 300, 4096]) {
        const tail = new OutputTail(capacity);
        const bytes = Buffer.from(text);
        for (let at = 0; at < bytes.length; at += chunkSize) {
          tail.push(bytes.subarray(at, at + chunkSize));
          const seen = bytes.subarray(0, Math.min(bytes.length, at + chunkSize));
          expect(tail.bytes().equals(seen.subarray(Math.max(0, seen.length - capacity)))).toBe(true);
        }
      }
    }
  });
});
