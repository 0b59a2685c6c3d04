import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { killRecordedHarness } from '../harness/pid-record.js';
import { sessionPaths } from '../memory/paths.js';
import { vaultLayout } from '../vault/layout.js';

/**
 * Stops the agents an earlier process of this worker left running, and returns the tasks they were
 * of. A worker killed with -9 (or by the OOM killer, outside a supervisor that kills its cgroup)
 * leaves each agent's process group alive, still working in the worker's clone. Each run's private
 * copy of its task keeps the record of its harness (harness.json, as on one machine), but the next
 * run of a task here rebuilds that copy from scratch, record included, and another task's copy is
 * never looked at again: so a worker starting in its folder kills every recorded harness first, as
 * the daemon does for a task it resumes.
 */
export async function killOrphanHarnesses(
  root: string,
  config: Pick<WiggumConfig, 'folders' | 'harness'>,
): Promise<string[]> {
  const runs = join(root, 'runs');
  const taskIds = await readdir(runs).catch(() => []);
  const killed: string[] = [];
  for (const taskId of taskIds) {
    const layout = vaultLayout(join(runs, taskId, 'vault'), { folders: config.folders, dashboard: null });
    const record = join(sessionPaths(layout.sessions, taskId).dir, 'harness.json');
    if (await killRecordedHarness(record, config.harness.stopGraceMs)) killed.push(taskId);
  }
  return killed;
}
