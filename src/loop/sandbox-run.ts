import { join } from 'node:path';
import type { HarnessKind } from '../config/schema.js';
import type { SandboxSettings } from '../config/sandbox-settings.js';
import { existsSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import { commonDir } from '../git/repo-serial.js';
import { gitSandboxPlan } from '../git/sandbox-git.js';
import type { GitRunEnd, SandboxWorktree } from '../git/sandbox-git.js';
import type { WiggumError } from '../errors.js';
import { locateCommand } from '../harness/command-lookup.js';
import { notStarted } from '../harness/run-process.js';
import type { ProcessResult, ProcessSpec } from '../harness/run-process.js';
import { spawnFailure } from '../harness/spawn-error.js';
import { movedHomes } from '../sandbox/agent-homes.js';
import { AGENT_DERIVED_FILES } from '../sandbox/agent-settings.js';
import { sandboxTools } from '../sandbox/availability.js';
import { folderToMakeIn, givenPlaces, madeAsFolder } from '../sandbox/given-places.js';
import { confineRun } from '../sandbox/confine.js';
import { confinementName, confinementOf } from '../sandbox/decision.js';
import type { Confinement } from '../sandbox/decision.js';
import { homeFilesOf } from '../sandbox/home-files.js';
import type { Mount } from '../sandbox/mount.js';
import { isUnder } from '../sandbox/mount-plan.js';
import type { IterationContext } from './iteration-context.js';
import type { CheckConfinement } from './verify.js';

/** How one run goes, and what follows it: the spec to start, and what its end tells. */
export interface RunConfinement {
  confinement: Confinement;
  /** The history's word for it: `bwrap`, `off`, `unconfined`. */
  name: 'bwrap' | 'off' | 'unconfined';
}

/** Who a confined run is, for its places: the harness (its private home) or a check. */
export interface ConfinedRunner {
  settings: SandboxSettings;
  kind: HarnessKind | null;
  /** Its private home's folder name under `.wiggum/homes/`. */
  homeName: string;
  /** Its run folder's name under `.wiggum/sandbox/<task id>/`, unique within the task. */
  runName: string;
  /**
   * What the person configured for it (a harness's `env:` values; a check's args and `env:`
   * values): the absolute paths among them are given to it (sandbox/given-places.ts).
   */
  named: readonly string[];
}

/** How runs of these settings go on this machine (the daemon's PATH decides where bubblewrap is). */
export async function runConfinement(ctx: IterationContext, settings: SandboxSettings): Promise<RunConfinement> {
  const tools = await sandboxTools(ctx.env);
  const confinement = confinementOf(settings, tools.availability);
  return { confinement, name: confinementName(confinement) };
}

/** The folder of a run's own things (its /tmp, its memory copies): inside wiggum's folder, on disk. */
export function runFolder(ctx: IterationContext, runName: string): string {
  return join(taskSandboxFolder(ctx.places.state, ctx.taskId), runName);
}

/** The folder of a task's confined runs, under wiggum's folder `state`. */
export function taskSandboxFolder(state: string, taskId: string): string {
  return join(state, 'sandbox', taskId);
}

/** What other parts add to a confined run: mounts over the plan, variables, and work once it ended. */
export interface RunExtras {
  mounts: Mount[];
  env: Record<string, string>;
  afterRun: (() => Promise<void>)[];
}

/**
 * The git mounts of a confined run (git/sandbox-git.ts): for the task's own worktree, the shared
 * `.git` read-only but for private objects and a private branch folder, moved into the repository
 * after the run (`scratchDir`, the run's folder, holds them); without one (wiggum ralph, a
 * workspace's own repository), the repository's whole `.git` read-only. A branch the agent left
 * where wiggum will not move it is the agent's doing, said at warn; a failure of wiggum's own git
 * (E_GIT) fails the iteration.
 */
export async function extraMounts(
  ctx: IterationContext,
  scratchDir: string,
  writable: readonly string[],
): Promise<RunExtras> {
  if (!ctx.git) return { mounts: [], env: {}, afterRun: [] };
  // A workspace's own repository (one the agent made in .wiggum/workspaces/) is the agent's.
  if (ctx.worktree === null && isUnder(ctx.workdir, join(ctx.places.state, 'workspaces')))
    return { mounts: [], env: {}, afterRun: [] };
  const worktree = ctx.worktree ?? (await ownCheckout(ctx.workdir, writable));
  if (worktree === null) return { mounts: [], env: {}, afterRun: [] };
  const plan = await gitSandboxPlan(worktree, scratchDir);
  for (const end of plan.recovered) {
    if (end.branch.kind === 'moved')
      ctx.logger.info(
        { event: 'sandbox.git-recovered', from: end.branch.from, to: end.branch.to },
        `a run cut off by a kill of wiggum had committed: ${worktree.branch} moved to its commit ${end.branch.to}`,
      );
    reportGitEnd(ctx, end);
  }
  const afterRun = async (): Promise<void> => reportGitEnd(ctx, await plan.afterRun());
  return { mounts: plan.mounts, env: plan.env, afterRun: [afterRun] };
}

function reportGitEnd(ctx: IterationContext, end: GitRunEnd): void {
  if (end.branch.kind === 'refused')
    ctx.logger.warn({ event: 'sandbox.git-refused', why: end.branch.why }, end.branch.message);
  if (end.restored.length > 0)
    ctx.logger.warn(
      { event: 'sandbox.git-restored', files: end.restored },
      `the agent changed its worktree's ${end.restored.join(' and ')}; wiggum put them back`,
    );
}

/**
 * A repository the task works in directly (gitDir = commonDir: git/sandbox-git-in-place.ts), unless
 * the person declared its `.git` in `sandbox.writable` (then the agent could write its hooks and
 * config too): null, no git mounts.
 */
async function ownCheckout(workdir: string, writable: readonly string[]): Promise<SandboxWorktree | null> {
  const common = await commonDir(workdir).catch(() => null);
  if (common === null) return null;
  const real = await realpath(common);
  const declared = await Promise.all(writable.map((path) => realpath(path).catch(() => null)));
  if (declared.includes(real)) return null;
  return { path: workdir, commonDir: real, gitDir: real, branch: '' };
}

/**
 * Wraps `spec` to run confined (`confinement` of kind bwrap), or hands it back as it is, and
 * returns what to do once the run ended: the limit it hit, if any.
 */
export async function confineSpec(
  ctx: IterationContext,
  runner: ConfinedRunner,
  run: RunConfinement,
  spec: ProcessSpec,
  memory: readonly string[],
): Promise<{
  spec: ProcessSpec;
  finish: (ended: { exitCode: number | null; signal: string | null }) => Promise<string | null>;
}> {
  const { confinement } = run;
  if (confinement.kind !== 'bwrap') return { spec, finish: () => Promise.resolve(null) };
  const tools = await sandboxTools(ctx.env);
  const scratch = runFolder(ctx, runner.runName);
  const given = await placesGiven(ctx, runner.named);
  const settings = { ...runner.settings, writable: [...runner.settings.writable, ...given] };
  const extra = await extraMounts(ctx, scratch, settings.writable);
  const confined = await confineRun({
    settings,
    tools,
    bwrap: confinement.path,
    command: spec.command,
    args: spec.args,
    cwd: spec.cwd,
    env: { ...spec.env, ...extra.env },
    realHome: ctx.env['HOME'],
    privateHome: join(ctx.places.state, 'homes', runner.homeName),
    homeFiles: runner.kind === null ? runner.settings.homeFiles : homeFilesOf(runner.kind, runner.settings.homeFiles),
    derivedFiles: runner.kind === null ? [] : (AGENT_DERIVED_FILES[runner.kind] ?? []),
    movedHomes: runner.kind === null ? [] : movedHomes(runner.kind, spec.env, ctx.env['HOME'] ?? null),
    runDir: scratch,
    repositories: ctx.config.allowedWorkdirs,
    vault: ctx.places.root,
    state: ctx.places.state,
    memory,
    // The task file (WIGGUM_TASK_FILE) is the agent's to read, never to write: shown read-only in the hidden vault.
    extraMounts: [...(await taskFileMount(ctx.taskFile)), ...extra.mounts],
    cgroupName: `${ctx.taskId}-${runner.runName}`,
    logger: ctx.logger,
  });
  return {
    spec: { ...spec, command: confined.command, args: confined.args, env: confined.env },
    finish: async (ended) => {
      try {
        for (const after of extra.afterRun) await after();
      } catch (error) {
        await confined.finish(ended).catch(() => null);
        throw error;
      }
      return confined.finish(ended);
    },
  };
}

/**
 * The places the person gave this harness's agent (sandbox/given-places.ts), by their real paths;
 * for one that does not exist yet, its folder (folderToMakeIn), judged by the same guards.
 */
async function placesGiven(ctx: IterationContext, named: readonly string[]): Promise<string[]> {
  const real = (path: string): Promise<string> => realpath(path).catch(() => path);
  const home = ctx.env['HOME'] === undefined || ctx.env['HOME'] === '' ? null : await real(ctx.env['HOME']);
  const guards = { home, vault: await real(ctx.places.root), state: await real(ctx.places.state) };
  // A symlink to a guarded place is judged where it leads.
  const givable = async (path: string): Promise<string | null> => {
    const resolved = await real(path);
    return givenPlaces({ ...guards, named: [resolved] }).length > 0 ? resolved : null;
  };
  const given: string[] = [];
  for (const place of givenPlaces({ ...guards, named })) {
    if (existsSync(place)) {
      const real = await givable(place);
      if (real !== null) given.push(real);
      continue;
    }
    // Not there yet: its folder, for the agent to make it in; else (that folder is above the vault,
    // say) a name that reads as a folder's is made one.
    const folder = folderToMakeIn(place);
    const holder = folder !== null && existsSync(folder) ? await givable(folder) : null;
    if (holder !== null) given.push(holder);
    else if (
      madeAsFolder(place) &&
      (await mkdir(place, { recursive: true, mode: 0o700 }).then(
        () => true,
        () => false,
      ))
    ) {
      const made = await givable(place);
      if (made !== null) given.push(made);
    }
  }
  return given;
}

async function taskFileMount(file: string): Promise<Mount[]> {
  const real = await realpath(file).catch(() => null);
  return real === null ? [] : [{ kind: 'ro', source: real, target: real }];
}

/** The spawn error of a command that is not there (or cannot run), as an unconfined spawn would give it; null: it is there. */
export async function missingCommand(spec: ProcessSpec): Promise<WiggumError | null> {
  const found = await locateCommand(spec.command, { pathEnv: spec.env['PATH'], cwd: spec.cwd });
  if (found.status === 'found') return null;
  const code = found.status === 'missing' ? 'ENOENT' : 'EACCES';
  const cause = Object.assign(new Error(`spawn ${spec.command} ${code}`), { code });
  return spawnFailure({ command: spec.command, cwd: spec.cwd, configKey: spec.configKey }, cause);
}

/** A run that never started, for this error. */
export function notStartedResult(ctx: IterationContext, error: WiggumError): ProcessResult {
  return {
    ...notStarted,
    startedAtMs: ctx.clock.now(),
    durationMs: 0,
    logTruncated: false,
    logError: null,
    spawnError: error,
  };
}

/** The verify check's confinement: the vault's own settings, a private home of its own (`check.NAME`). */
export function confineCheck(ctx: IterationContext, checkName: string): CheckConfinement {
  return async (spec) => {
    const run = await runConfinement(ctx, ctx.config.sandbox);
    if (run.confinement.kind === 'refused') return { refused: run.confinement.message };
    const check = ctx.config.checks[checkName];
    const runner = {
      settings: ctx.config.sandbox,
      kind: null,
      homeName: `check.${checkName}`,
      runName: 'verify',
      named: [...spec.args, ...Object.values(check?.env ?? {})],
    };
    const missing = run.name === 'bwrap' ? await missingCommand(spec) : null;
    if (missing !== null) return { refused: missing.message };
    const confined = await confineSpec(ctx, runner, run, spec, []);
    return {
      spec: confined.spec,
      finish: confined.finish,
    };
  };
}
