import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { LandMode } from '../config/schema.js';
import type { CheckDefinition, HarnessDefinition, LoopConfig, WiggumConfig } from '../config/config.js';
import { WiggumError, isWiggumError, systemErrorCode } from '../errors.js';
import { checkoutTaskBranch, excludeFromGit, isGitRepository } from '../git/git.js';
import { taskBranch } from '../git/worktree-plan.js';
import type { HarnessDriver } from '../harness/drivers/driver.js';
import { driverFor } from '../harness/drivers/registry.js';
import { killRecordedHarness } from '../harness/pid-record.js';
import type { GroupHost } from '../harness/process-host.js';
import type { Logger } from '../log/logger.js';
import { memoryPlace, workdirMemoryDir, workdirMemoryKey } from '../memory/memory-place.js';
import { buildPrd, parsePrd } from '../memory/prd.js';
import type { Prd } from '../memory/prd.js';
import { openSession } from '../memory/session.js';
import type { OpenSessionOptions, OpenedSession } from '../memory/session.js';
import { openWorkdirMemory } from '../memory/workdir-store.js';
import type { Task } from '../task/parse.js';
import { prdFileOf } from '../task/prd-file.js';
import { resolveWorkdir } from '../task/workdir.js';
import type { Clock } from '../time/clock.js';
import type { RunPlaces } from './run-places.js';
import { openWorktree } from './open-worktree.js';
import type { PreparedWorktree } from './open-worktree.js';
import { settingError, taskSettings } from './task-settings.js';
import type { RunOverrides } from './task-settings.js';

// The flags' shape lives beside the precedence it feeds; the commands import it from here.
export type { RunOverrides } from './task-settings.js';

/** A task with everything its loop needs resolved and checked. */
export interface PreparedTask {
  harness: HarnessDefinition;
  driver: HarnessDriver;
  workdir: string;
  maxIterations: number;
  promise: string;
  verify: CheckDefinition | null;
  branch: string | null;
  git: boolean;
  loop: LoopConfig;
  session: OpenedSession;
  /** `<session>/harness.json`, or null when memory is not durable. */
  harnessRecord: string | null;
  /**
   * `.ralph/<task id>/` when prd.json and progress.txt live in the workdir (`memory.in_workdir`), relative to
   * it, as the checkpoint records it; null: they are in the session folder.
   */
  memory: string | null;
  /** The task's own worktree (`workdir` is inside it), or null: it works in its workdir itself. */
  worktree: PreparedWorktree | null;
  /** How its branch lands once it is complete (a task with a worktree only). */
  land: LandMode;
  /** The task's `base:` or `git.base`; null: the branch it was started from (land-task.ts). */
  base: string | null;
}

export type { PreparedWorktree } from './open-worktree.js';

export interface PrepareDeps {
  config: WiggumConfig;
  places: RunPlaces;
  clock: Clock;
  logger: Logger;
  processes?: GroupHost;
  /**
   * Work in the workdir itself, on the task's branch checked out there, instead of in a worktree
   * of its own: `wiggum ralph`, which the user starts in their repository to work on it.
   */
  workInPlace?: boolean;
}

/**
 * Resolves harness, workdir, limits and memory for a task, kills a harness left running by a
 * crashed earlier run, and puts the workdir on the task's branch. Problems a person must fix are
 * thrown as WiggumErrors (the caller rejects the task with them).
 */
export async function prepareTask(task: Task, overrides: RunOverrides, deps: PrepareDeps): Promise<PreparedTask> {
  const { config, places, logger } = deps;
  const fm = task.frontmatter;
  const chosen = taskSettings(overrides, fm, config);
  if (chosen.kind === 'problem') throw settingError(chosen.problem, basename(task.file));
  const { settings } = chosen;

  const workdir = await resolveWorkdir(task.id, settings.workdir ?? undefined, {
    vaultRoot: places.root,
    allowedRoots: config.allowedWorkdirs,
    workspaces: places.workspaces,
  });
  if (settings.workdir === null) await mkdir(workdir, { recursive: true });

  const { session, branch } = await openTaskMemory(task, settings.branch, {
    places,
    clock: deps.clock,
    ...config.memory, // its backend and limits
    logger,
  });

  const harnessRecord = session.store.paths === null ? null : join(session.store.paths.dir, 'harness.json');
  if (
    harnessRecord !== null &&
    (await killRecordedHarness(harnessRecord, config.harness.stopGraceMs, deps.processes))
  ) {
    logger.warn(
      { event: 'harness.orphan-killed' },
      'killed a harness left running by an earlier wiggum that did not stop cleanly',
    );
  }

  // A task without a workdir works in .wiggum/workspaces/<id>/, inside the vault, and vaults are
  // often git repositories: that repository is the user's, not the task's. Git is used there only
  // when the workspace has a repository of its own (one the agent made).
  const git =
    config.git.enabled &&
    (settings.workdir === null ? existsSync(join(workdir, '.git')) : await isGitRepository(workdir));
  if (git && (await excludeFromGit(workdir, places.state)))
    logger.info({ event: 'git.state-excluded' }, `added ${places.state} to the repository's .git/info/exclude`);
  let worktree: PreparedWorktree | null = null;
  let agentWorkdir = workdir;
  if (git && settings.workdir !== null && deps.workInPlace !== true) {
    // The user's working copy is theirs: the task works in its own worktree on its own branch.
    const { workdir: inside, ...opened } = await openWorktree(
      workdir,
      task.id,
      taskBranch(branch, task.id),
      settings.base?.ref ?? null,
      places,
      logger,
    );
    worktree = opened;
    agentWorkdir = inside;
  } else if (git && branch !== null) {
    const checkout = await checkoutTaskBranch(workdir, branch);
    if (checkout.created)
      logger.info({ event: 'git.branch-created', branch, from: checkout.from }, `created branch ${branch}`);
  }

  const memory = await placeMemory(session, task.id, agentWorkdir, git, config, deps);

  return {
    harness: settings.harness,
    driver: driverFor(settings.harness.kind),
    workdir: agentWorkdir,
    maxIterations: settings.maxIterations,
    promise: settings.promise,
    verify: settings.verify,
    branch: worktree?.branch ?? branch,
    git,
    loop: settings.loop,
    session: memory.session,
    memory: memory.key,
    harnessRecord,
    worktree,
    land: settings.land,
    base: settings.base?.ref ?? null,
  };
}

/**
 * The task's memory as every host opens it, the vault host for a run on workers too: its own prd
 * (`prd:`, read here and nowhere else) seeds a new session and names its branch when no `branch:`
 * does. Returns the session and the branch (null: none named).
 */
export async function openTaskMemory(
  task: Task,
  branchSetting: string | null,
  deps: MemoryDeps & { logger: Logger },
): Promise<{ session: OpenedSession; branch: string | null }> {
  const prdFile = prdFileOf(task);
  const userPrd = prdFile === null ? null : await readUserPrd(prdFile);
  const branch = branchSetting ?? userPrd?.branchName ?? null;
  const session = await openTaskSession(task, branch, userPrd, deps);
  if (session.warning !== null) deps.logger.warn({ event: 'session.not-durable', durable: false }, session.warning);
  if (session.archivedTo !== null)
    deps.logger.info(
      { event: 'session.archived', archivedTo: session.archivedTo },
      'archived the previous session of this id',
    );
  return { session, branch };
}

type MemoryDeps = { places: RunPlaces; clock: Clock } & Pick<OpenSessionOptions, 'backend' | 'limits'>;

/**
 * Opens the task's session memory: the one its checkpoint names, or a new one whose prd.json is the
 * user's own (`prd:`) or built from the task.
 */
function openTaskSession(
  task: Task,
  branch: string | null,
  userPrd: Prd | null,
  deps: MemoryDeps,
): Promise<OpenedSession> {
  return openSession({
    sessionsRoot: deps.places.sessions,
    archiveRoot: deps.places.archive,
    taskId: task.id,
    taskFile: task.file,
    sessionId: task.frontmatter.persistence_loop?.session,
    newSessionId: randomUUID(),
    branchName: branch,
    initialPrd: () =>
      userPrd ??
      buildPrd({
        taskId: task.id,
        title: task.frontmatter.title ?? task.id,
        branchName: branch,
        description: task.body,
        stories: task.stories,
      }),
    backend: deps.backend,
    clock: deps.clock,
    limits: deps.limits,
  });
}

/**
 * Moves prd.json and progress.txt into the agent's workdir when `memory.in_workdir` asks for it and
 * the workdir is in a git repository (memory-place.ts decides); otherwise the session is unchanged.
 */
async function placeMemory(
  session: OpenedSession,
  taskId: string,
  workdir: string,
  git: boolean,
  config: WiggumConfig,
  deps: PrepareDeps,
): Promise<{ session: OpenedSession; key: string | null }> {
  const paths = session.store.paths;
  const place = memoryPlace({ inWorkdir: config.memory.inWorkdir, repository: git, durable: paths !== null });
  if (place.where === 'session' || paths === null) {
    if (place.where === 'session' && place.why !== 'configured')
      deps.logger.info(
        { event: 'session.memory-not-in-workdir', why: place.why },
        place.why === 'not-a-repository'
          ? "memory.in_workdir is set, but the workdir is not in a git repository: prd.json and progress.txt stay in the task's session folder"
          : 'memory.in_workdir is set, but the session memory is not on disk: prd.json and progress.txt stay in memory',
      );
    return { session, key: null };
  }
  let opened;
  try {
    opened = await openWorkdirMemory(paths, workdir, taskId, session.created, deps.clock, config.memory.limits);
  } catch (error) {
    if (isWiggumError(error)) throw error;
    throw new WiggumError(
      'E_MEMORY_UNAVAILABLE',
      `could not write the task's prd.json and progress.txt into ${join(workdir, workdirMemoryDir(taskId))} (${systemErrorCode(error) ?? String(error)}): make that folder writable, or set memory.in_workdir: false`,
      { cause: error },
    );
  }
  deps.logger.info(
    { event: 'session.memory-in-workdir', dir: opened.dir, seeded: opened.seeded },
    `prd.json and progress.txt are in ${opened.dir}, committed with the code; the session folder keeps a copy`,
  );
  return { session: { ...session, store: opened.store }, key: workdirMemoryKey(taskId) };
}

async function readUserPrd(path: string): Promise<Prd> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new WiggumError(
      'E_MEMORY_CORRUPT',
      `the task's prd file ${path} cannot be read (${systemErrorCode(error) ?? String(error)}): fix the prd: key`,
      {
        cause: error,
      },
    );
  }
  return parsePrd(text, path);
}
