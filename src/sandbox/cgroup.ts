import { accessSync, constants } from 'node:fs';
import { mkdir, readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
 * The cgroups this process made and has not released (`<pid>/<name>`, under the root): each is
 * empty from its making until its run's wrapper joins it, and must not be taken for an idle one.
 */
const opened = new Set<string>();

/**
 * Makes the cgroup `<pid>/<name>` (this process's folder: the owner, for the other processes that
 * clear idle cgroups; `name` unique among its runs) under `root` with at most `maxPids` processes
 * and threads. Returns null when it cannot be made (the caller falls back to RLIMIT_NPROC and says so).
 */
export async function openRunCgroup(root: CgroupRoot, name: string, maxPids: number): Promise<RunCgroup | null> {
  const entry = join(String(process.pid), name);
  const dir = join(root.dir, entry);
  opened.add(entry);
  try {
    await prepareRoot(root);
    await removeIdle(root.dir);
    await makeRunCgroup(root, dir);
    await writeFile(join(dir, 'pids.max'), String(maxPids));
  } catch {
    opened.delete(entry);
    return null;
  }
  return {
    procs: join(dir, 'cgroup.procs'),
    refusedForks: async () => pidsRefused(await readFile(join(dir, 'pids.events'), 'utf8').catch(() => '')),
    release: async () => {
      opened.delete(entry);
      await rmdir(dir).catch(() => undefined);
    },
  };
}

/**
 * The run's cgroup in this process's folder. That folder is empty for a moment, when a wiggum of
 * an earlier version (which clears every idle cgroup right under `wiggum/`) may remove it: it is
 * made again then. Once the run's cgroup is inside, nothing can remove the folder.
 */
async function makeRunCgroup(root: CgroupRoot, dir: string): Promise<void> {
  const own = dirname(dir);
  for (let attempt = 1; ; attempt += 1) {
    try {
      await mkdir(own, { recursive: true });
      if (root.version === 2) await writeFile(join(own, 'cgroup.subtree_control'), '+pids');
      await mkdir(dir);
      return;
    } catch (error) {
      if (systemErrorCode(error) !== 'ENOENT' || attempt === 3) throw error;
    }
  }
}

/** What decides which cgroups may be cleared: this process's, and which others are alive. */
export interface CgroupOwners {
  /** The cgroups this process opened and has not released (`<pid>/<name>`). */
  opened: ReadonlySet<string>;
  pid: number;
  alive: (pid: number) => boolean;
}

/**
 * Pure: the cgroups under `wiggum/` (`tree`: each folder there with its sub-folders) that may be
 * removed once idle, inner ones before their folder (rmdir refuses a busy one, which stays). A
 * process's folder `<pid>/` goes with its cgroups once the process is gone; of this process's own,
 * those it released busy; another live process's are its own (it may have just made one, empty
 * until its run joins it). A cgroup of an earlier version (`<pid>-<name>`, flat) goes on the same terms.
 */
export function clearableCgroups(
  tree: readonly { name: string; children: readonly string[] }[],
  owners: CgroupOwners,
): string[] {
  const paths: string[] = [];
  for (const { name, children } of tree) {
    const owner = /^(\d+)(?:-|$)/.exec(name)?.[1];
    const pid = owner === undefined ? null : Number(owner);
    if (pid !== null && pid !== owners.pid && owners.alive(pid)) continue;
    paths.push(...children.map((child) => join(name, child)).filter((path) => !owners.opened.has(path)));
    if (pid !== owners.pid) paths.push(name);
  }
  return paths;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return systemErrorCode(error) === 'EPERM';
  }
}

/** The `wiggum` folder; under cgroup2 its parent hands it the pids controller, and it hands it on. */
async function prepareRoot(root: CgroupRoot): Promise<void> {
  await mkdir(root.dir, { recursive: true });
  if (root.version === 2) {
    await writeFile(join(root.dir, '..', 'cgroup.subtree_control'), '+pids').catch(() => undefined);
    await writeFile(join(root.dir, 'cgroup.subtree_control'), '+pids');
  }
}

/**
 * Cgroups of earlier runs whose processes have gone since (a busy one refuses rmdir, and stays),
 * but none another run may be about to join (clearableCgroups).
 */
async function removeIdle(rootDir: string): Promise<void> {
  const names = await folders(rootDir);
  if (names === null) return;
  const tree = await Promise.all(
    names.map(async (name) => ({ name, children: (await folders(join(rootDir, name)).catch(() => null)) ?? [] })),
  );
  for (const path of clearableCgroups(tree, { opened, pid: process.pid, alive }))
    await rmdir(join(rootDir, path)).catch(() => undefined);
}

/** The sub-folders of `dir` (a cgroup's child cgroups); null: it is not there. */
async function folders(dir: string): Promise<string[] | null> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return null;
    throw error;
  }
}
