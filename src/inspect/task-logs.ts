import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { systemErrorCode } from '../errors.js';
import { driverFor } from '../harness/drivers/registry.js';
import type { HarnessDriver } from '../harness/drivers/driver.js';
import type { IterationRecord } from '../memory/history.js';

/** One harness log of a task's session: `logs/0007.log` (iteration 7) or `logs/0007.retry2.log`. */
export interface LogFile {
  name: string;
  path: string;
  iteration: number;
  attempt: number;
}

const LOG_NAME = /^(\d{4,})(?:\.retry(\d+))?\.log$/;

/** The iteration and attempt a log file name stands for, or null for a file that is not a harness log. */
export function parseLogName(name: string): { iteration: number; attempt: number } | null {
  const match = LOG_NAME.exec(name);
  if (match === null) return null;
  return { iteration: Number(match[1]), attempt: match[2] === undefined ? 0 : Number(match[2]) };
}

/** The harness logs among `names`, in the order they were written: by iteration, then attempt. */
export function orderLogs(dir: string, names: readonly string[]): LogFile[] {
  const logs: LogFile[] = [];
  for (const name of names) {
    const parsed = parseLogName(name);
    if (parsed !== null) logs.push({ name, path: join(dir, name), ...parsed });
  }
  return logs.sort((a, b) => a.iteration - b.iteration || a.attempt - b.attempt);
}

/** The harness logs in a session's `logs/` folder, in order; none when it does not exist yet. */
export async function listLogs(dir: string): Promise<LogFile[]> {
  try {
    return orderLogs(dir, await readdir(dir));
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT' || systemErrorCode(error) === 'ENOTDIR') return [];
    throw error;
  }
}

/**
 * The harness that wrote a log: the history record that names it (a finished run), else the
 * harness running now (`current`: the live status, the task's own choice). Null: unknown.
 */
export function harnessOfLog(log: LogFile, history: readonly IterationRecord[], current: string | null): string | null {
  const record = history.find(
    (r) =>
      (r.logFile !== undefined && basename(r.logFile) === log.name) ||
      (r.iteration === log.iteration && r.attempt === log.attempt),
  );
  return record?.harness ?? current;
}

/** The driver that reads a harness's output; a command harness, or an unknown one, is read as plain text. */
export function driverOfHarness(name: string | null, config: Pick<WiggumConfig, 'harnesses'>): HarnessDriver {
  const kind = name === null ? 'command' : (config.harnesses[name]?.kind ?? 'command');
  return driverFor(kind);
}

/** The short header before each log: "── iteration 3 (retry 1) · fake · .wiggum/sessions/x/logs/0003.retry1.log". */
export function logHeader(log: LogFile, harness: string | null, shownPath: string): string {
  const retry = log.attempt === 0 ? '' : ` (retry ${log.attempt})`;
  return `── iteration ${log.iteration}${retry}${harness === null ? '' : ` · ${harness}`} · ${shownPath}\n`;
}
