import type { SandboxLimits } from '../config/sandbox-settings.js';

/** SIGXFSZ's number on Linux: a process that writes past RLIMIT_FSIZE dies of it. */
const SIGXFSZ = 25;

/** Where a run's pids cgroup is made: a v1 `pids` hierarchy, or a cgroup2 tree with the pids controller. */
export type CgroupRoot = { version: 1; dir: string } | { version: 2; dir: string };

/**
 * Pure: the cgroup mounts of /proc/self/mountinfo: the v1 hierarchy with the pids controller and
 * the cgroup2 mount, where there are.
 */
export function cgroupMounts(mountinfo: string): { pidsV1: string | null; v2: string | null } {
  let pidsV1: string | null = null;
  let v2: string | null = null;
  for (const line of mountinfo.split('\n')) {
    // "36 25 0:31 / /sys/fs/cgroup/pids rw,nosuid - cgroup cgroup rw,pids": after " - ", the type and options.
    const [before, after] = line.split(' - ');
    if (before === undefined || after === undefined) continue;
    const mountPoint = unescapeMount(before.split(' ')[4] ?? '');
    const [type, , options = ''] = after.split(' ');
    if (type === 'cgroup' && options.split(',').includes('pids')) pidsV1 ??= mountPoint;
    if (type === 'cgroup2') v2 ??= mountPoint;
  }
  return { pidsV1, v2 };
}

/** mountinfo writes a space as \040 and so on. */
function unescapeMount(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/**
 * Pure: where wiggum makes the runs' pids cgroups: under the v1 pids hierarchy when there is one,
 * else under cgroup2 when it offers the pids controller, each in a `wiggum` folder wiggum may write;
 * null: none (RLIMIT_NPROC is all there is, and it binds nothing for root).
 */
export function cgroupRoot(facts: {
  pidsV1: string | null;
  v2: string | null;
  v2Controllers: readonly string[];
  writable: (dir: string) => boolean;
}): CgroupRoot | null {
  if (facts.pidsV1 !== null && facts.writable(facts.pidsV1)) return { version: 1, dir: `${facts.pidsV1}/wiggum` };
  if (facts.v2 !== null && facts.v2Controllers.includes('pids') && facts.writable(facts.v2))
    return { version: 2, dir: `${facts.v2}/wiggum` };
  return null;
}

/** Pure: how many times a pids cgroup refused a fork, from its `pids.events` ("max 3"). */
export function pidsRefused(events: string): number {
  const match = /^max (\d+)$/m.exec(events);
  return match === null ? 0 : Number(match[1]);
}

/**
 * Pure: which limit a run hit, for a person, or null. A refused fork does not always end the agent
 * (bash retries it and may exit 0), so the cgroup's count decides, not the exit; a file past the
 * size limit kills its writer with SIGXFSZ, which bubblewrap reports as exit 128 + 25.
 */
export function limitHit(
  facts: { refusedForks: number; exitCode: number | null; signal: string | null },
  limits: SandboxLimits,
): string | null {
  if (facts.refusedForks > 0)
    return `the agent reached the sandbox's process limit (${limits.processes} processes and threads at once, sandbox.limits.processes): ${facts.refusedForks} of its forks were refused. A fork bomb or a runaway build; raise the limit if the work needs more`;
  if (facts.signal === 'SIGXFSZ' || facts.exitCode === 128 + SIGXFSZ)
    return `the agent wrote a file past the sandbox's file size limit (${limits.fileSizeBytes} bytes, sandbox.limits.file_size) and was killed (SIGXFSZ). A runaway log; raise the limit if the work needs bigger files`;
  return null;
}
