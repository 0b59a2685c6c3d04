import { accessSync, constants } from 'node:fs';
import { mkdir, readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemErrorCode } from '../errors.js';
import { cgroupMounts, cgroupRoot, pidsRefused } from './limits.js';
import type { CgroupRoot } from './limits.js';

/** One run's pids cgroup: the file its first process joins, and what it counted. */
export interface RunCgroup {
  /** `cgroup.procs`: the run's wrapper writes its own pid here before it becomes bubblewrap. */
  procs: string;
  /** How many forks the limit refused. */
  refusedForks(): Promise<number>;
  /** Removes the cgroup once its processes are gone; one still busy is removed by a later run. */
  release(): Promise<void>;
}

/** Where this machine lets wiggum make pids cgroups, read once from /proc/self/mountinfo. */
export async function findCgroupRoot(): Promise<CgroupRoot | null> {
  let mountinfo: string;
  try {
    mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
  } catch {
    return null;
  }
  const { pidsV1, v2 } = cgroupMounts(mountinfo);
  const v2Controllers =
    v2 === null ? [] : (await readFile(join(v2, 'cgroup.controllers'), 'utf8').catch(() => '')).trim().split(/\s+/);
  return cgroupRoot({ pidsV1, v2, v2Controllers, writable });
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes the cgroup `name` under `root` with at most `maxPids` processes and threads. Returns null
 * when it cannot be made (the caller falls back to RLIMIT_NPROC and says so).
 */
export async function openRunCgroup(root: CgroupRoot, name: string, maxPids: number): Promise<RunCgroup | null> {
  const dir = join(root.dir, name);
  try {
    await prepareRoot(root);
    await removeIdle(root.dir);
    await mkdir(dir);
    await writeFile(join(dir, 'pids.max'), String(maxPids));
  } catch {
    return null;
  }
  return {
    procs: join(dir, 'cgroup.procs'),
    refusedForks: async () => pidsRefused(await readFile(join(dir, 'pids.events'), 'utf8').catch(() => '')),
    release: () => rmdir(dir).catch(() => undefined),
  };
}

/** The `wiggum` folder; under cgroup2 its parent hands it the pids controller, and it hands it on. */
async function prepareRoot(root: CgroupRoot): Promise<void> {
  await mkdir(root.dir, { recursive: true });
  if (root.version === 2) {
    await writeFile(join(root.dir, '..', 'cgroup.subtree_control'), '+pids').catch(() => undefined);
    await writeFile(join(root.dir, 'cgroup.subtree_control'), '+pids');
  }
}

/** Cgroups of earlier runs whose processes have gone since (a busy one refuses rmdir, and stays). */
async function removeIdle(rootDir: string): Promise<void> {
  let entries: string[];
  try {
    entries = (await readdir(rootDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return;
    throw error;
  }
  await Promise.all(entries.map((entry) => rmdir(join(rootDir, entry)).catch(() => undefined)));
}
