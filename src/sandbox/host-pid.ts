/**
 * One pid for a run in every view: inside its PID namespace the agent runs under the host pid of
 * the process wiggum started for the run (bubblewrap's outer process). The pid an agent prints or
 * records for itself (`$$`) then names its run on the host: `ps` shows it, wiggum's status shows
 * it, and a `kill` of it ends the run. Without this the agent is pid 2 or 3 inside, numbers that
 * name unrelated host processes (2 is kthreadd), so a pid file an agent wrote would point a
 * person's `kill` at the wrong process.
 *
 * How: the launcher inside (pid 2) sets the namespace's `ns_last_pid` to that pid minus one, drops
 * every capability (`setpriv`), and only then forks the command, which gets the next pid. Setting
 * `ns_last_pid` takes CAP_CHECKPOINT_RESTORE over the namespace, so the launcher alone keeps it and
 * CAP_SETPCAP (to empty the bounding set) until `setpriv` drops all; no command of the agent's runs
 * before that. Root only: an unprivileged bubblewrap's namespace refuses the write, and the agent
 * keeps its small pid (sandboxTools probes it once).
 */

/** The variable that carries the run's host pid from the outer shell to the launcher inside (unset there). */
export const HOST_PID_VARIABLE = 'WIGGUM_SANDBOX_HOST_PID';

/** The two capabilities only the launcher holds, added after bubblewrap's `--cap-drop ALL`. */
export const LAUNCHER_CAPABILITIES = ['CAP_CHECKPOINT_RESTORE', 'CAP_SETPCAP'] as const;

/**
 * The launcher (`/bin/sh -c LAUNCHER SETPRIV COMMAND ARGS…`): every word of the command is a
 * positional parameter, never read as shell. A refused write leaves the next pid as it was. The
 * shell under `setpriv` forks the command (`; exit $?` keeps dash from exec'ing it) and returns
 * its status; that shell and bubblewrap keep the stop signals ignored, as before.
 */
export const LAUNCHER =
  `p=\${${HOST_PID_VARIABLE}:-0}; unset ${HOST_PID_VARIABLE}; ` +
  `[ "$p" -gt 3 ] 2>/dev/null && echo $((p - 1)) > /proc/sys/kernel/ns_last_pid 2>/dev/null; ` +
  `exec "$0" --bounding-set=-all --inh-caps=-all -- /bin/sh -c '"$@"; exit $?' sh "$@"`;

/** Pure: the command bubblewrap starts, through the launcher when `setpriv` is there. */
export function launchedCommand(
  setpriv: string | null,
  command: string,
  args: readonly string[],
): { command: string; args: readonly string[] } {
  return setpriv === null
    ? { command, args }
    : { command: '/bin/sh', args: ['-c', LAUNCHER, setpriv, command, ...args] };
}

/** Pure: the outer shell's line that hands its own pid (the run's leader) to the launcher. */
export function exportHostPid(setpriv: string | null): string {
  return setpriv === null ? '' : `export ${HOST_PID_VARIABLE}=$$; `;
}
