import { locateCommand } from '../harness/command-lookup.js';
import { runCaptured } from '../harness/run-captured.js';
import { findCgroupRoot } from './cgroup.js';
import { HOST_PID_VARIABLE, LAUNCHER_CAPABILITIES, launchedCommand } from './host-pid.js';
import type { SandboxAvailability } from './decision.js';
import type { CgroupRoot } from './limits.js';

/** What this machine offers to confine a run: bubblewrap, `prlimit`, and where pids cgroups go. */
export interface SandboxTools {
  availability: SandboxAvailability;
  /** `prlimit` (util-linux) on PATH, or null: no process limit where there is no pids cgroup (outer-shell.ts). */
  prlimit: string | null;
  /** Where run cgroups are made, or null: processes are limited by RLIMIT_NPROC only. */
  cgroup: CgroupRoot | null;
  /** `env` that takes `--default-signal` (coreutils 8.31), or null: bubblewrap is not shielded from stops (confine.ts). */
  defaultSignals: string | null;
  /** `setpriv` (util-linux) when the agent can run under its run's host pid (host-pid.ts), or null: it keeps a small pid. */
  hostPids: string | null;
}

/** How long the probe may take: a start of bubblewrap takes about 10 ms. */
const PROBE_TIMEOUT_MS = 10_000;

/** A found bubblewrap is probed once per PATH; one not found is looked for again each time (it may be installed since). */
const found = new Map<string, Promise<SandboxTools>>();

/**
 * Whether runs can be confined, with the PATH of `env` (the daemon's own). bubblewrap is looked
 * up on that PATH and tried once on a trivial command (never an agent): found but unable to start
 * (no user namespaces for this user, a seccomp filter) is as good as missing.
 */
export async function sandboxTools(env: NodeJS.ProcessEnv): Promise<SandboxTools> {
  const key = env['PATH'] ?? '';
  const known = found.get(key);
  if (known !== undefined) return known;
  const probe = probeTools(env);
  const tools = await probe;
  if (tools.availability.kind === 'bwrap') found.set(key, probe);
  return tools;
}

async function probeTools(env: NodeJS.ProcessEnv): Promise<SandboxTools> {
  const places = { pathEnv: env['PATH'], cwd: '/' };
  const [bwrap, prlimit, truePath, envPath, setpriv, cgroup] = await Promise.all([
    locateCommand('bwrap', places),
    locateCommand('prlimit', places),
    locateCommand('true', places),
    locateCommand('env', places),
    locateCommand('setpriv', places),
    findCgroupRoot(),
  ]);
  const defaultSignals =
    envPath.status === 'found' && truePath.status === 'found'
      ? await takesDefaultSignal(envPath.path, truePath.path, env)
      : null;
  const tools = { prlimit: prlimit.status === 'found' ? prlimit.path : null, cgroup, defaultSignals };
  if (bwrap.status !== 'found')
    return {
      ...tools,
      hostPids: null,
      availability: { kind: 'none', why: `bwrap is not on the PATH of wiggum (${bwrap.status})` },
    };
  const trivial = truePath.status === 'found' ? truePath.path : '/bin/true';
  const tried = await tryBwrap(bwrap.path, [trivial], [], env);
  const hostPids =
    tried.kind === 'bwrap' && setpriv.status === 'found' && (await takesHostPid(bwrap.path, setpriv.path, env))
      ? setpriv.path
      : null;
  return { ...tools, hostPids, availability: tried };
}

/** The pid a launched command gets in the probe (any pid above the namespace's first few). */
const PROBE_PID = 4242;

/** Whether the launcher gives a command the pid it is handed, with no capability left (host-pid.ts). */
async function takesHostPid(bwrap: string, setpriv: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const check = `[ "$$" = ${PROBE_PID} ] && grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status`;
  const launched = launchedCommand(setpriv, '/bin/sh', ['-c', check]);
  const started = await startsSandbox(bwrap, [launched.command, ...launched.args], LAUNCHER_CAPABILITIES, {
    ...env,
    [HOST_PID_VARIABLE]: String(PROBE_PID),
  }).catch(() => null);
  return started === null;
}

async function takesDefaultSignal(envPath: string, trivial: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const run = await runCaptured(envPath, ['--default-signal=TERM', trivial], {
    cwd: '/',
    env,
    timeoutMs: PROBE_TIMEOUT_MS,
  }).catch(() => null);
  return run?.exitCode === 0 ? envPath : null;
}

async function tryBwrap(
  bwrap: string,
  command: readonly string[],
  capabilities: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<SandboxAvailability> {
  try {
    const version = await runCaptured(bwrap, ['--version'], { cwd: '/', env, timeoutMs: PROBE_TIMEOUT_MS });
    const refused = await startsSandbox(bwrap, command, capabilities, env);
    if (refused !== null) return { kind: 'none', why: `${bwrap} is there but could not start a sandbox (${refused})` };
    return { kind: 'bwrap', path: bwrap, version: version.stdout.trim() || 'bubblewrap' };
  } catch (error) {
    return {
      kind: 'none',
      why: `${bwrap} could not be started (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

/** Starts `command` in a minimal sandbox: null when it ran and exited 0, else why not (bubblewrap's last line). */
async function startsSandbox(
  bwrap: string,
  command: readonly string[],
  capabilities: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<string | null> {
  const run = await runCaptured(
    bwrap,
    [
      '--die-with-parent',
      '--unshare-pid',
      '--cap-drop',
      'ALL',
      ...capabilities.flatMap((capability) => ['--cap-add', capability]),
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--',
      ...command,
    ],
    { cwd: '/', env, timeoutMs: PROBE_TIMEOUT_MS },
  );
  return run.exitCode === 0 ? null : (run.stderr.trim().split('\n').pop() ?? `exit ${run.exitCode}`);
}
