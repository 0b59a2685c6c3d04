import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runProcess } from '../../src/harness/run-process.js';
import { SecretMask } from '../../src/secret-mask.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'ck-0123456789abcdefghijklmnopqrst';

describe('runProcess with a secret mask', () => {
  test('a value printed whole, on stderr, and split across two writes never reaches the log, the tails or onOutput', async () => {
    const dir = tempDir();
    const logFile = join(dir, 'run.log');
    const go = join(dir, 'go');
    // The second half is written only once the test has seen the first write: two chunks for sure.
    const script = [
      `printf 'debug: key=%s\\n' "$KEY"`,
      `printf 'warning: %s\\n' "$KEY" >&2`,
      `printf 'session key: %s' "$(printf %s "$KEY" | cut -c1-13)"`,
      `while [ ! -e "${go}" ]; do sleep 0.05; done`,
      `printf '%s (resumed)\\n' "$(printf %s "$KEY" | cut -c14-)"`,
      `printf 'ends with a start: %s' "$(printf %s "$KEY" | cut -c1-5)"`,
    ].join('\n');
    const chunks: string[] = [];
    const result = await runProcess({
      command: '/bin/sh',
      args: ['-c', script],
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', KEY },
      stdin: '',
      timeoutMs: 0,
      idleTimeoutMs: 0,
      stopGraceMs: 300,
      logFile,
      logMaxBytes: 1024 * 1024,
      tailBytes: 4096,
      mask: new SecretMask([KEY]),
      onOutput: (chunk) => {
        chunks.push(chunk.toString());
        if (chunks.join('').includes('session key: ')) writeFileSync(go, '');
      },
    });
    expect(result.exitCode).toBe(0);
    const log = readFileSync(logFile, 'utf8');
    for (const text of [log, result.stdoutTail, result.stderrTail, ...chunks]) {
      expect(text).not.toContain(KEY.slice(0, 12));
      expect(text).not.toContain(KEY.slice(-12));
    }
    expect(result.stdoutTail).toBe(
      'debug: key=[redacted]\nsession key: [redacted] (resumed)\nends with a start: ck-01',
    );
    expect(result.stderrTail).toBe('warning: [redacted]\n');
    // The log interleaves both streams as they are read: stderr's line may land inside stdout's.
    expect(log).toContain('[redacted] (resumed)\n');
  });
});
