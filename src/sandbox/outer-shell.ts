import type { SandboxLimits } from '../config/sandbox-settings.js';
import { exportHostPid } from './host-pid.js';

/** What the shell wiggum starts for a confined run does before it becomes bubblewrap. */
export interface OuterShellInput {
  /** bubblewrap is started with the stop signals ignored (the command inside gets them back). */
  ignoreStops: boolean;
  /** `setpriv` of the host-pid launcher, or null: no pid handed on (host-pid.ts). */
  hostPids: string | null;
  limits: SandboxLimits;
  /** The run's cgroup's `cgroup.procs`, joined first, or null. */
  cgroupProcs: string | null;
}

/**
 * bubblewrap's outer process is in the run's process group, so a stop's SIGTERM to the group would
 * kill it at once, and with it (--die-with-parent) the agent, before its stop grace: bubblewrap
 * starts with the stop signals ignored (inherited across exec), and the command inside gets them
 * back by `env --default-signal` (coreutils 8.31). A SIGKILL after the grace still ends them all.
 */
const IGNORE_STOPS = 'trap "" TERM INT HUP; ';

/** 512-byte blocks: the unit of `ulimit -f` in dash and in bash as `sh` (POSIX mode). */
const FSIZE_BLOCK = 512;

/**
 * Pure: the shell's own limits, soft and hard alike (neither -S nor -H sets both), so the agent
 * cannot raise them: open files and file size. Processes are a cgroup's (RLIMIT_NPROC binds nothing
 * for root; `limitsLeftToPrlimit` says what is left when there is no cgroup). The shell sets them on
 * itself before it becomes bubblewrap: one exec fewer than `prlimit`.
 */
export function ulimitLine(limits: SandboxLimits): string {
  const parts: string[] = [];
  if (limits.openFiles > 0) parts.push(`ulimit -n ${limits.openFiles}`);
  if (limits.fileSizeBytes > 0) parts.push(`ulimit -f ${Math.max(1, Math.floor(limits.fileSizeBytes / FSIZE_BLOCK))}`);
  return parts.map((part) => `${part} && `).join('');
}

/** Pure: the `prlimit` options still needed: processes by RLIMIT_NPROC, only when no cgroup counts them. */
export function limitsLeftToPrlimit(limits: SandboxLimits, withCgroup: boolean): string[] {
  return !withCgroup && limits.processes > 0 ? [`--nproc=${limits.processes}:${limits.processes}`] : [];
}

/**
 * Pure: `sh -c SCRIPT` around `command args` (prlimit or bubblewrap): the stop signals ignored,
 * the limits set, the run's pid handed on, the cgroup joined (its path as `$0`), then an exec, so
 * the process wiggum started stays the run's leader.
 */
export function outerShell(
  input: OuterShellInput,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  const script =
    (input.ignoreStops ? IGNORE_STOPS : '') +
    exportHostPid(input.hostPids) +
    ulimitLine(input.limits) +
    (input.cgroupProcs === null ? '' : 'echo $$ > "$0" && ') +
    'exec "$@"';
  return { command: '/bin/sh', args: ['-c', script, input.cgroupProcs ?? 'sh', command, ...args] };
}
