import { describe, expect, test } from 'vitest';
import { withoutRepeatedKeys } from '../../src/log/logger.js';
import { runCli } from '../helpers/child.js';
import { makeVault } from '../helpers/vault.js';

/** The keys of a JSON object line that appear more than once at its top level (JSON.parse keeps only the last). */
function repeatedKeys(line: string): string[] {
  const seen = new Set<string>();
  const repeated: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i];
    if (char === '"') {
      let end = i + 1;
      while (line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
      if (depth === 1 && expectKey) {
        const key = JSON.parse(line.slice(i, end + 1)) as string;
        if (seen.has(key)) repeated.push(key);
        seen.add(key);
        expectKey = false;
      }
      i = end;
    } else if (char === '{' || char === '[') {
      depth += 1;
      if (depth === 1) expectKey = true;
    } else if (char === '}' || char === ']') depth -= 1;
    else if (char === ',' && depth === 1) expectKey = true;
  }
  return repeated;
}

describe('log lines never repeat a key', () => {
  test.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    ['nothing bound twice: the same object', { iteration: 2 }, { taskId: 't' }, { iteration: 2 }],
    [
      'a bound key given again with the same value is dropped',
      { taskId: 't', iteration: 2 },
      { taskId: 't' },
      { iteration: 2 },
    ],
    [
      'a bound key given with another value is kept under another name',
      { taskId: 'u' },
      { taskId: 't' },
      { otherTaskId: 'u' },
    ],
    ["a key of pino's own (pid) is kept under another name", { pid: 42 }, {}, { otherPid: 42 }],
  ])('%s', (_, fields, bound, kept) => {
    expect(withoutRepeatedKeys(fields, bound)).toEqual(kept);
  });

  test('the detector sees a repeated key', () => {
    expect(repeatedKeys('{"a":1,"b":{"a":2},"a":"x\\"y"}')).toEqual(['a']);
  });

  test('every JSON line of a wiggum run, archived session and memory warning included, has each key once', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const task = '---\ntitle: twice\n---\n- [ ] US-001 One\n';
    const first = await runCli(['run', vault.task('twice', task), '--no-stream']);
    // The same id again: the earlier session is archived (a line of its own).
    const second = await runCli(['run', vault.task('twice', task), '--no-stream', '--log-level', 'debug']);
    expect([first.code, second.code]).toEqual([0, 0]);
    const lines = `${first.stderr}\n${second.stderr}`.split('\n').filter((line) => line.startsWith('{'));
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.some((line) => line.includes('archived the previous session'))).toBe(true);
    expect(lines.filter((line) => repeatedKeys(line).length > 0)).toEqual([]);
  });
});
