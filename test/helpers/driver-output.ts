import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentReport, HarnessDriver } from '../../src/harness/drivers/driver.js';
import { notStarted } from '../../src/harness/run-process.js';
import type { ProcessResult } from '../../src/harness/run-process.js';
import { REPO_ROOT } from './child.js';

/** A recorded output file under test/fixtures/<agent>/ (see the README there). */
export function fixture(agent: string, name: string): Buffer {
  return readFileSync(join(REPO_ROOT, 'test', 'fixtures', agent, name));
}

/** A finished run that exited 0, with `overrides` on top. */
export function processResult(overrides: Partial<ProcessResult> = {}): ProcessResult {
  return {
    ...notStarted,
    pid: 1234,
    exitCode: 0,
    startedAtMs: 0,
    durationMs: 10,
    logTruncated: false,
    logError: null,
    ...overrides,
  };
}

export interface ReadOptions {
  /** Chunk size in bytes (lines and characters are split across chunks); default: one chunk. */
  size?: number;
  exitCode?: number | null;
  stderr?: string;
  /** When the run ended (epoch ms), for relative reset times. */
  endedAtMs?: number;
}

/** Runs `stdout` (and `stderr`) through a fresh reader of `driver` as the loop does: push, then display. */
export function readOutput(
  driver: HarnessDriver,
  stdout: Buffer | string,
  options: ReadOptions = {},
): { report: AgentReport; shown: string } {
  const bytes = typeof stdout === 'string' ? Buffer.from(stdout) : stdout;
  const reader = driver.createReader();
  const size = Math.max(1, options.size ?? bytes.length);
  let shown = '';
  for (let start = 0; start < bytes.length; start += size) {
    const chunk = bytes.subarray(start, start + size);
    reader.push(chunk, 'stdout');
    shown += reader.display(chunk, 'stdout');
  }
  if (options.stderr !== undefined) {
    const chunk = Buffer.from(options.stderr);
    reader.push(chunk, 'stderr');
    shown += reader.display(chunk, 'stderr');
  }
  const endedAtMs = options.endedAtMs ?? 1_800_000_000_000;
  const report = reader.finish(
    processResult({
      exitCode: options.exitCode === undefined ? 0 : options.exitCode,
      startedAtMs: endedAtMs - 10,
      durationMs: 10,
      stdoutTail: bytes.toString('utf8').slice(-65536),
      stderrTail: options.stderr ?? '',
    }),
  );
  return { report, shown };
}
