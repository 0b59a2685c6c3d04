import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runTask } from '../../src/loop/run-task.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { runDeps } from '../helpers/run-deps.js';

/**
 * Agents that print what no agent should: bytes that are not UTF-8, one line of 10 MB, JSON cut
 * off mid-object. The loop must go on, find the promise printed after the junk, keep its log
 * capped and its history readable.
 */

/** A real executable: prints `junk` (a node expression giving a Buffer), then `after`. */
function hostileAgent(junk: string, after: string): string {
  const path = join(tempDir('wiggum-hostile-'), 'agent.mjs');
  writeFileSync(
    path,
    `#!/usr/bin/env node\nprocess.stdout.write(${junk});\nprocess.stdout.write(${JSON.stringify(after)});\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

async function runWith(kind: 'command' | 'claude', agent: string) {
  const vault = await makeVault({
    config: {
      harness: { default: 'hostile', log_max_bytes: '1MiB' },
      harnesses: { hostile: { kind, command: agent } },
    },
  });
  const file = vault.task('hostile', '---\ntitle: Hostile\n---\nNo checklist: the promise completes it.\n');
  const { logger } = captureLogger();
  const result = await runTask({ file, stream: null, signal: new AbortController().signal }, runDeps(vault, logger));
  const log = join(vault.layout.sessions, 'hostile', 'logs', '0001.log');
  return { result, history: historyOf(vault.layout.sessions, 'hostile'), logBytes: statSync(log).size };
}

const INVALID_UTF8 = 'Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0x0a])';
const TEN_MB_LINE = "Buffer.alloc(10 * 1024 * 1024, 'x')";
const RESULT = `\n${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done\n<promise>COMPLETE</promise>', session_id: 's' })}\n`;

describe('hostile agent output', () => {
  test.each([
    ['invalid UTF-8, plain command', 'command', INVALID_UTF8, '\n<promise>COMPLETE</promise>\n'],
    ['a 10 MB single line, plain command', 'command', TEN_MB_LINE, '\n<promise>COMPLETE</promise>\n'],
    ['invalid UTF-8 among stream JSON', 'claude', INVALID_UTF8, RESULT],
    ['a 10 MB single line among stream JSON', 'claude', TEN_MB_LINE, RESULT],
    [
      'JSON cut off mid-object among stream JSON',
      'claude',
      `Buffer.from('{"type":"assistant","message":{"content":[{"type":"text","text":"cut')`,
      RESULT,
    ],
  ] as const)(
    '%s: the loop goes on and completes; the log stays capped; history is readable',
    async (_name, kind, junk, after) => {
      const ran = await runWith(kind, hostileAgent(junk, after));
      expect(ran.result).toMatchObject({ status: 'done', iterations: 1 });
      expect(ran.history).toHaveLength(1);
      expect(ran.history[0]).toMatchObject({ outcome: 'complete', completionFound: true });
      // 1 MiB of log at most, plus the one line that says the rest was dropped.
      expect(ran.logBytes).toBeLessThan(1024 * 1024 + 1024);
      expect(readFileSync(join(ran.result.file), 'utf8')).toContain('## Completion summary');
    },
  );
});
