import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { killProcessGroup } from './process-group.js';
import { systemProcessHost } from './process-host.js';
import type { GroupHost, ProcessHost } from './process-host.js';
import { systemProcessTable } from './process-tree.js';
import { killStrays } from './stray-kill.js';
import { processStartTicks } from '../lock/process-identity.js';

interface HarnessRecord {
  /** null while the harness is being spawned (only its marker is known yet). */
  pid: number | null;
  /** Field 22 of /proc/<pid>/stat: tells a reused pid from the harness that was recorded. */
  startTicks: string | null;
  /** The run's marker (`WIGGUM_RUN_MARKER`), to find what left the group; absent in older records. */
  marker?: string | null;
}

/**
 * What killing a recorded harness needs. The process table is optional so that callers holding only
 * a `GroupHost` keep working; without one, strays are looked for in the real /proc.
 */
export type RecoveryHost = GroupHost & Partial<Pick<ProcessHost, 'processTable'>>;

/**
 * Every record is written at the file's start as one write of the same length (padded with spaces;
 * a record is about 100 bytes), never truncated first: a kill lands before or after that one write
 * (under a page at offset 0, copied whole or not at all), and what it leaves is one whole record.
 */
const RECORD_BYTES = 256;

/**
 * Remembers the running harness in the session folder. If wiggum itself is killed (kill -9,
 * power loss under a supervisor that does not kill the group), the harness's process group
 * survives, and so does whatever left the group carrying the run's `marker`; the next run of the
 * task kills both before starting another agent in the same workdir.
 *
 * Written over the marker's record (recordHarnessMarker): either of the two finds the harness.
 * Not fsynced: after a power loss the harness is gone too. Never throws.
 */
export async function recordHarness(file: string, pid: number, marker: string | null = null): Promise<void> {
  const text = recordText({ pid, startTicks: processStartTicks(pid), marker });
  // On the thread pool: the agent runs meanwhile, and a disk under contention does not stall the loop.
  try {
    const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
    try {
      await handle.write(text, 0);
    } finally {
      await handle.close();
    }
  } catch {
    // The session folder is unwritable: the run goes on without a record, and says nothing either.
  }
}

/**
 * The marker alone, written just before the spawn: a wiggum killed between the spawn and
 * `recordHarness` still leaves what finds the harness (every process of a run carries its
 * marker). Never throws: without a record the run goes on, as it did before records existed.
 */
export function recordHarnessMarker(file: string, marker: string): void {
  writeRecordSync(file, recordText({ pid: null, startTicks: null, marker }), true);
}

/**
 * Says "no harness running" after a run (a record with neither pid nor marker), keeping the file for
 * the next run's record: overwriting it costs less than removing it and creating it again, or than
 * truncating it. Never throws.
 */
export function emptyHarnessRecord(file: string): void {
  writeRecordSync(file, recordText({ pid: null, startTicks: null, marker: null }), false);
}

function recordText(record: HarnessRecord): string {
  return `${JSON.stringify(record).padEnd(RECORD_BYTES - 1)}\n`;
}

/** One write at the file's start. A symlink is not followed. */
function writeRecordSync(file: string, text: string, create: boolean): void {
  try {
    const fd = openSync(file, constants.O_WRONLY | constants.O_NOFOLLOW | (create ? constants.O_CREAT : 0), 0o644);
    try {
      writeSync(fd, text, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The session folder is unwritable, or (emptying) no record: the run goes on without one.
  }
}

export async function clearHarnessRecord(file: string): Promise<void> {
  await rm(file, { force: true });
}

/**
 * Kills the recorded harness group if it is still the same process and alive, and every process
 * still carrying the recorded run marker (those that left the group); returns whether anything was
 * left to kill.
 */
export async function killRecordedHarness(
  file: string,
  graceMs: number,
  host: RecoveryHost = systemProcessHost,
): Promise<boolean> {
  let record: HarnessRecord;
  try {
    record = JSON.parse(await readFile(file, 'utf8')) as HarnessRecord;
  } catch {
    return false;
  }
  let killed = false;
  if (record.pid !== null && Number.isInteger(record.pid) && record.pid > 1 && host.isGroupAlive(record.pid)) {
    const now = processStartTicks(record.pid);
    // The leader may be gone while the rest of its group lives on: then the group is still ours.
    if (now === null || record.startTicks === null || now === record.startTicks)
      killed = await killProcessGroup(record.pid, graceMs, host);
  }
  // The marker is random per run, so whatever carries it is that run's, whatever became of its pid.
  if (typeof record.marker === 'string' && record.marker !== '') {
    const strays = await killStrays(record.marker, graceMs, {
      ...host,
      processTable: host.processTable ?? systemProcessTable,
    });
    killed ||= strays > 0;
  }
  await clearHarnessRecord(file);
  return killed;
}
