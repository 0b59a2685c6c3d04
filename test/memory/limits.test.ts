import { describe, expect, test } from 'vitest';
import { describeBytes, memoryTooLarge } from '../../src/memory/limits.js';

describe('memory limits', () => {
  test.each([
    [0, '0 bytes'],
    [1, '1 byte'],
    [1023, '1023 bytes'],
    [1024, '1 KiB'],
    [256 * 1024, '256 KiB'],
    [1536, '1.5 KiB'],
    [8 * 1024 * 1024, '8 MiB'],
    [60 * 1024 * 1024 + 300, '60.0 MiB'],
    [3 * 1024 ** 3, '3 GiB'],
  ])('%i bytes read as %s', (bytes, shown) => {
    expect(describeBytes(bytes)).toBe(shown);
  });

  test('the error names the file, its size, the limit and the setting', () => {
    const error = memoryTooLarge('/s/prd.json', 'prd', 60 * 1024 * 1024, 8 * 1024 * 1024);
    expect(error.code).toBe('E_MEMORY_TOO_LARGE');
    expect(error.message).toContain('/s/prd.json is 60 MiB, over the 8 MiB limit for prd.json (memory.limits.prd)');
    expect(memoryTooLarge('/s/progress.txt', 'progress', null, 1024).message).toContain('not a regular file');
  });
});
