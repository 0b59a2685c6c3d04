import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { plural } from '../src/plural.js';
import { REPO_ROOT } from './helpers/child.js';

describe('plural', () => {
  test.each([
    [0, 'iteration', undefined, '0 iterations'],
    [1, 'iteration', undefined, '1 iteration'],
    [2, 'iteration', undefined, '2 iterations'],
    [1, 'retry', 'retries', '1 retry'],
    [3, 'retry', 'retries', '3 retries'],
    [1, 'background process', 'background processes', '1 background process'],
  ])('%d %s', (count, one, many, text) => {
    expect(plural(count, one, many)).toBe(text);
  });

  test('nothing in src/ writes an "iteration(s)" plural: every count goes through plural()', () => {
    const found: string[] = [];
    (function walk(dir: string): void {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts')) {
          readFileSync(path, 'utf8')
            .split('\n')
            .forEach((line, index) => {
              if (/\w\((?:s|es|ies)\)(?!\w)/.test(line)) found.push(`${path}:${index + 1}: ${line.trim()}`);
            });
        }
      }
    })(join(REPO_ROOT, 'src'));
    expect(found).toEqual([]);
  });
});
