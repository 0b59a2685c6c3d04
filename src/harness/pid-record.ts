import { readFile, rm } from 'node:fs/promises';
import { writeFileAtomic } from '../store/atomic-write.js';
import { killProcessGroup } from './process-group.js';
import { systemProcessHost } from './process-host.js';
import type { GroupHost } from './process-host.js';
import { processStartTicks } from '../lock/process-identity.js';

interface HarnessRecord {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: tells a reused pid from the harness that was recorded. */
  startTicks: string | null;
}

/**
 * Remembers the running harness in the session folder. If wiggum itself is killed (kill -9,
 * power loss under a supervisor that does not kill the group), the harness's process group
 * survives; the next run of the task kills it before starting another agent in the same workdir.
 */
export async function recordHarness(file: string, pid: number): Promise<void> {
  const record: HarnessRecord = { pid, startTicks: processStartTicks(pid) };
  // Never torn, but not fsynced: after a power loss the harness is gone too.
  await writeFileAtomic(file, `${JSON.stringify(record)}\n`, { durable: false });
}

export async function clearHarnessRecord(file: string): Promise<void> {
  await rm(file, { force: true });
}

/** Kills the recorded harness group if it is still the same process and alive; returns whether it was. */
export async function killRecordedHarness(file: string, graceMs: number, host: GroupHost = systemProcessHost): Promise<boolean> {
  let record: HarnessRecord;
  try {
    record = JSON.parse(await readFile(file, 'utf8')) as HarnessRecord;
  } catch {
    return false;
  }
  let killed = false;
  if (Number.isInteger(record.pid) && record.pid > 1 && host.isGroupAlive(record.pid)) {
    const now = processStartTicks(record.pid);
    // The leader may be gone while the rest of its group lives on: then the group is still ours.
    if (now === null || record.startTicks === null || now === record.startTicks) killed = await killProcessGroup(record.pid, graceMs, host);
  }
  await clearHarnessRecord(file);
  return killed;
}
