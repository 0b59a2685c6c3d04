import { realpath, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { HomeFile, SandboxSettings } from '../config/sandbox-settings.js';
import { locateCommand } from '../harness/command-lookup.js';
import type { MovedHome } from './agent-homes.js';
import type { DerivedHomeFile } from './agent-settings.js';
import { ownFolder, placeDerivedFiles, placeHomeFiles, placeMovedHomes } from './private-home.js';
import type { SandboxTools } from './availability.js';
import { bwrapArgv } from './bwrap-argv.js';
import { LAUNCHER_CAPABILITIES, launchedCommand } from './host-pid.js';
import { commandPackage } from './command-package.js';
import { openRunCgroup } from './cgroup.js';
import type { RunCgroup } from './cgroup.js';
import { limitHit } from './limits.js';
import { limitsLeftToPrlimit, outerShell } from './outer-shell.js';
import type { Mount } from './mount.js';
import { mountPlan } from './mount-plan.js';
import { startEgressRun } from './egress-run.js';
import type { EgressRun } from './egress-run.js';
import type { Logger } from '../log/logger.js';

/** One run to confine: its command as it would run unconfined, and the places it may use. */
export interface ConfineRequest {
  settings: SandboxSettings;
  tools: SandboxTools;
  /** bubblewrap's path (`Confinement` of kind bwrap). */
  bwrap: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The real home of wiggum's user (its HOME), hidden and replaced by `privateHome`. */
  realHome: string | undefined;
  /** This harness's home between runs (`<vault>/.wiggum/homes/<name>/`), made if missing. */
  privateHome: string;
  /** Its files of the real home (home-files.ts). */
  homeFiles: readonly HomeFile[];
  /** Settings files of the private home made from the real ones (sandbox/agent-settings.ts). */
  derivedFiles: readonly DerivedHomeFile[];
  /** The agent's own folders moved by a variable (agent-homes.ts): each gets a private one beside the private home. */
  movedHomes: readonly MovedHome[];
  /** This run's own folder (its /tmp is `tmp/` inside, made empty): removed after the run. */
  runDir: string;
  vault: string;
  /** wiggum's folder in the vault (`.wiggum/`). */
  state: string;
  /** Where the person's repositories live (`vault.allowed_workdirs`): hidden but for the run's own places. */
  repositories: readonly string[];
  /** Writable besides the workdir: the run's memory. */
  memory: readonly string[];
  /** Mounts other parts add over the plan (git's of a worktree's shared `.git`). */
  extraMounts: readonly Mount[];
  /** The run's pids cgroup's name, unique among this process's runs (the cgroup is `<pid>-<name>`). */
  cgroupName: string;
  /** For the egress proxy's refusals (`network: allow`). */
  logger: Logger;
}

/** A confined run: the command line to start instead, and what to do once it has ended. */
export interface ConfinedRun {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** After the run: which limit it hit (a message), or null; the run's folder and cgroup are removed. */
  finish(ended: { exitCode: number | null; signal: string | null }): Promise<string | null>;
}

/** The stop signals back to their defaults for the command inside (outer-shell.ts says why they were ignored). */
const STOP_SIGNALS = '--default-signal=TERM,INT,HUP';

/**
 * Prepares the places of one confined run (its private home and temp, the home files, its
 * cgroup) and returns its command line: `sh -c OUTER [prlimit NPROC --] bwrap … -- [LAUNCHER]
 * [env --default-signal] COMMAND ARGS` (outer-shell.ts), every step outside an exec, so the
 * process wiggum started stays the run's leader, and its pid is the agent's inside (host-pid.ts).
 */
export async function confineRun(request: ConfineRequest): Promise<ConfinedRun> {
  const egress =
    request.settings.network === 'allow'
      ? await startEgressRun({ ...request, allow: request.settings.allow, runDir: request.runDir })
      : null;
  try {
    return await confinedLine(request, egress);
  } catch (error) {
    await egress?.release();
    throw error;
  }
}

async function confinedLine(request: ConfineRequest, egress: EgressRun | null): Promise<ConfinedRun> {
  const home = await usableHome(request.realHome);
  const privateHome = await ownFolder(request.privateHome);
  // Only its temp is emptied: the git plan made its folders in the run's folder already.
  await rm(join(request.runDir, 'tmp'), { recursive: true, force: true });
  const privateTmp = await ownFolder(join(request.runDir, 'tmp'));
  const roFiles = await placeHomeFiles(home, privateHome, request.homeFiles);
  await placeDerivedFiles(home, privateHome, request.derivedFiles);
  const replaced = await placeMovedHomes(request.privateHome, request.movedHomes);
  const env = sandboxEnvironment({ ...request.env, ...egress?.env }, home ?? privateHome);
  const mounts = mountPlan({
    home,
    privateHome: home === null ? null : privateHome,
    privateTmp,
    replaced,
    vault: await realpath(request.vault),
    state: await realpath(request.state),
    workdir: await realpath(request.cwd),
    memory: [
      ...(await reals(request.memory)),
      ...(home === null ? [privateHome] : []),
      ...(egress === null ? [] : [egress.socketDir]),
    ],
    tools: [...(await toolFolders(request.command, env)), ...(egress === null ? [] : await reals(egress.tools))],
    homeFiles: roFiles,
    readOnly: await reals(expandHome(request.settings.readOnly, home)),
    writable: await reals(expandHome(request.settings.writable, home)),
    hidden: await reals(expandHome(request.settings.hidden, home)),
    repositories: await reals(request.repositories),
    extra: [...request.extraMounts],
  });
  const { hostPids: setpriv } = request.tools;
  const signalled = insideCommand(
    request.tools.defaultSignals,
    egress?.command ?? request.command,
    egress?.args ?? request.args,
  );
  const launched = launchedCommand(setpriv, signalled.command, signalled.args);
  // network: allow is an empty namespace too: the forwarder inside carries the agent's connections
  // to wiggum's proxy through the socket's folder.
  let line = bwrapArgv({
    bwrap: request.bwrap,
    mounts,
    cwd: request.cwd,
    network: request.settings.network === 'on' ? 'on' : 'off',
    capabilities: setpriv === null ? [] : LAUNCHER_CAPABILITIES,
    ...launched,
  });
  const { limits } = request.settings;
  const cgroup =
    request.tools.cgroup !== null && limits.processes > 0
      ? await openRunCgroup(request.tools.cgroup, request.cgroupName, limits.processes)
      : null;
  const nproc = limitsLeftToPrlimit(limits, cgroup !== null);
  if (request.tools.prlimit !== null && nproc.length > 0)
    line = { command: request.tools.prlimit, args: [...nproc, '--', line.command, ...line.args] };
  line = outerShell(
    {
      ignoreStops: request.tools.defaultSignals !== null,
      hostPids: setpriv,
      limits,
      cgroupProcs: cgroup?.procs ?? null,
    },
    line.command,
    line.args,
  );
  return {
    ...line,
    env,
    finish: async (ended) => {
      await egress?.release();
      return finishRun(request, cgroup, ended);
    },
  };
}

/** The command bubblewrap starts: through `env --default-signal` where that works (the stop signals back to their defaults). */
function insideCommand(
  env: string | null,
  command: string,
  args: readonly string[],
): { command: string; args: readonly string[] } {
  return env === null ? { command, args } : { command: env, args: [STOP_SIGNALS, command, ...args] };
}

async function finishRun(
  request: ConfineRequest,
  cgroup: RunCgroup | null,
  ended: { exitCode: number | null; signal: string | null },
): Promise<string | null> {
  const refusedForks = cgroup === null ? 0 : await cgroup.refusedForks();
  await cgroup?.release();
  await rm(request.runDir, { recursive: true, force: true }).catch(() => undefined);
  return limitHit({ refusedForks, ...ended }, request.settings.limits);
}

/**
 * The environment inside: HOME is the same path (the private home is shown there), the XDG
 * folders inside it, /tmp the private one; the variables that tell an agent it runs inside
 * another agent's session never reach it.
 */
export function sandboxEnvironment(env: Record<string, string>, home: string): Record<string, string> {
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    TMPDIR: '/tmp',
  };
}

/** The real home, when there is one worth hiding: not unset, not `/`, and a folder. */
async function usableHome(home: string | undefined): Promise<string | null> {
  if (home === undefined || home === '' || home === '/') return null;
  try {
    const real = await realpath(home);
    return real !== '/' && (await stat(real)).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/**
 * The folders the command needs: its PATH, the real folder of the command itself, and the folder
 * of its package (command-package.ts).
 */
async function toolFolders(command: string, env: Record<string, string>): Promise<string[]> {
  const folders = (env['PATH'] ?? '').split(':').filter((dir) => dir.startsWith('/'));
  const found = await locateCommand(command, { pathEnv: env['PATH'], cwd: '/' });
  if (found.status === 'found') {
    folders.push(dirname(found.path));
    const real = await realpath(found.path).catch(() => null);
    if (real !== null) {
      folders.push(dirname(real));
      const installed = await commandPackage(real);
      if (installed !== null) folders.push(installed);
    }
  }
  return reals(folders);
}

function expandHome(paths: readonly string[], home: string | null): string[] {
  return paths.flatMap((path) => {
    if (path === '~' || path.startsWith('~/')) return home === null ? [] : [join(home, path.slice(1))];
    return [path];
  });
}

/** The real paths of those that exist (a path that is not there is neither shown nor hidden). */
async function reals(paths: readonly string[]): Promise<string[]> {
  const resolved = await Promise.all(paths.map((path) => realpath(path).catch(() => null)));
  return [...new Set(resolved.filter((path): path is string => path !== null))];
}
