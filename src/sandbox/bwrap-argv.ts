import { WiggumError } from '../errors.js';
import type { NetworkMode } from '../config/sandbox-schema.js';
import type { Mount } from './mount.js';

/** What the bubblewrap command line is made of. */
export interface BwrapInput {
  bwrap: string;
  mounts: readonly Mount[];
  /** Where the command starts (inside the sandbox, the same path as outside). */
  cwd: string;
  network: Exclude<NetworkMode, 'allow'>;
  command: string;
  args: readonly string[];
  /** Capabilities the command starts with after all are dropped (host-pid.ts: the launcher's, which it drops itself). */
  capabilities?: readonly string[];
}

/**
 * Pure: the bubblewrap command line of one run, `bwrap OPTIONS -- COMMAND ARGS`.
 *
 * - The root read-only, a fresh /dev and /proc (of the new PID namespace), then the mounts in order.
 * - `--unshare-pid`: the daemon and other agents are invisible and unkillable; when the agent (pid
 *   2, under bubblewrap's reaper) exits, the kernel kills everything it left in the namespace.
 * - `--die-with-parent`: nothing of the run outlives wiggum.
 * - `--cap-drop ALL`: bubblewrap run as root keeps every capability unless told, and with them an
 *   agent could remount what is read-only. Only `capabilities` are added back, for a launcher
 *   that drops them before the agent starts (host-pid.ts).
 * - `--unshare-net` for network off: an empty namespace, not even loopback to the host.
 * - No `--new-session`: wiggum starts bubblewrap with setsid already (a new session without a
 *   terminal, the group wiggum signals); a second session would take the agent out of that group.
 * - The environment is the one wiggum gives the process (bubblewrap passes it on), so the run's
 *   marker reaches every process of the run.
 *
 * Every path given to bubblewrap is absolute, so none can be read as an option; the command comes
 * after `--`.
 */
export function bwrapArgv(input: BwrapInput): { command: string; args: string[] } {
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--cap-drop', 'ALL'];
  for (const capability of input.capabilities ?? []) args.push('--cap-add', capability);
  if (input.network === 'off') args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  for (const mount of input.mounts) args.push(...mountArgs(mount));
  args.push('--chdir', absolute(input.cwd), '--', input.command, ...input.args);
  return { command: input.bwrap, args };
}

function mountArgs(mount: Mount): string[] {
  switch (mount.kind) {
    case 'ro':
      return ['--ro-bind', absolute(mount.source), absolute(mount.target)];
    case 'rw':
      return ['--bind', absolute(mount.source), absolute(mount.target)];
    case 'hide':
      // 0700: what the agent writes in a hidden place is its own.
      return ['--perms', '0700', '--tmpfs', absolute(mount.target)];
  }
}

/** A path that could be read as an option never reaches the command line. */
function absolute(path: string): string {
  if (!path.startsWith('/'))
    throw new WiggumError('E_INTERNAL', `the sandbox's paths are absolute; "${path}" is not: report this as a bug`);
  return path;
}
