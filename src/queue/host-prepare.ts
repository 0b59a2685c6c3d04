import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import { accountOf } from '../config/config.js';
import { WiggumError, isWiggumError } from '../errors.js';
import { currentBranch, git } from '../git/git.js';
import { taskBranch } from '../git/worktree-plan.js';
import { checkpointData } from '../loop/checkpoint.js';
import type { RunTaskDeps, RunTaskRequest } from '../loop/request.js';
import { openTaskMemory } from '../loop/prepare.js';
import { resumePlan } from '../loop/resume-plan.js';
import { settingError, taskSettings } from '../loop/task-settings.js';
import type { TaskSettings } from '../loop/task-settings.js';
import { writeCheckpoint } from '../loop/write-checkpoint.js';
import type { IterationRecord } from '../memory/history.js';
import { storySummary } from '../memory/prd.js';
import { readMemoryText } from '../memory/session-meta.js';
import type { OpenedSession } from '../memory/session.js';
import type { Task } from '../task/parse.js';
import type { PersistenceLoopData } from '../task/render.js';
import { resolveWorkdir } from '../task/workdir.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { CodePlace } from './code-place.js';
import { REMOTE_PATTERN } from './code-place.js';
import { buildJobData } from './job-data.js';
import type { JobData } from './job-data.js';
import type { MemoryFiles } from './memory-files.js';
import type { ProgressState } from './progress.js';

/** What the vault host keeps of a task's run on workers, beside its session: `queue.json`. */
export interface QueueRecord extends ProgressState {
  /** The commit the last applied progress pushed: where a run added again resumes. */
  commit: string | null;
}

/** A task made ready on the vault host for a run on a worker. */
export interface HostPrepared {
  settings: TaskSettings;
  session: OpenedSession;
  code: Omit<CodePlace, 'commit'>;
  /** The task file's text after the starting checkpoint. */
  text: string;
  checkpoint: PersistenceLoopData;
  history: IterationRecord[];
  historyBase: number;
  record: QueueRecord;
}

/**
 * Everything the host does before a run goes to a worker, as the loop would before its first
 * iteration: the settings resolved from the host's config, the session opened (the host is its only
 * writer), the starting checkpoint written, and where the code lives: the task's `workdir:` must be
 * a git clone whose `origin` every worker reaches; the run works on the task's branch there.
 * Problems a person must fix are thrown as WiggumErrors (the caller rejects the task with them).
 */
export async function prepareOnHost(task: Task, request: RunTaskRequest, deps: RunTaskDeps): Promise<HostPrepared> {
  const { config, clock } = deps;
  const layout = deps.host.places;
  const fm = task.frontmatter;
  const chosen = taskSettings(request.overrides ?? {}, fm, config);
  if (chosen.kind === 'problem') throw settingError(chosen.problem, basename(task.file));
  const { settings } = chosen;
  if (settings.workdir === null)
    throw new WiggumError(
      'E_WORKDIR',
      `${basename(task.file)} has no workdir: a task run on workers needs one, a git clone whose origin every worker reaches (the run works on the task's branch there)`,
    );
  if (settings.land !== 'branch')
    throw new WiggumError(
      'E_TASK_SCHEMA',
      `${basename(task.file)} asks for land: ${settings.land}, which workers do not make: a task run on workers lands as its branch on the remote (land: branch); merge it or open the pull request from there, or run the task without --queue`,
    );
  const workdir = await resolveWorkdir(task.id, settings.workdir, {
    vaultRoot: layout.root,
    allowedRoots: config.allowedWorkdirs,
    workspaces: layout.workspaces,
  });
  const remote = await originOf(workdir);
  // The memory as every host opens it: the task's own `prd:` seeds the session and may name its branch.
  const memory = await openTaskMemory(task, settings.branch, {
    places: layout,
    clock,
    backend: 'disk',
    limits: config.memory.limits,
    logger: deps.logger,
  });
  const { session } = memory;
  const branch = taskBranch(memory.branch, task.id);
  const base = settings.base?.ref ?? (await remoteBaseOf(workdir));

  const history = await session.store.loadHistory();
  const plan = resumePlan(fm.persistence_loop, history, { maxIterations: settings.maxIterations, nowMs: clock.now() });
  const prd = await session.store.loadPrd();
  const next = storySummary(prd).nextStory;
  const checkpoint = checkpointData({
    state: plan.state,
    status: 'queued',
    session: session.sessionId,
    started: plan.started,
    nowMs: clock.now(),
    historyBase: plan.historyBase,
    completedSteps: prd.userStories.filter((story) => story.passes).map((story) => story.id),
    currentStep: next?.id ?? null,
  });
  const text = await writeCheckpoint(
    task.file,
    task.text,
    { keys: { state: 'Approved', persistence_loop: checkpoint } },
    { logger: deps.logger, clock },
  );
  if (text === null)
    throw new WiggumError('E_TASK_GONE', `${task.file} was moved or deleted before its run was queued`);
  const record = await readQueueRecord(session);
  return {
    settings,
    session,
    code: { remote, branch, base },
    text,
    checkpoint,
    history,
    historyBase: plan.historyBase,
    record: { ...record, seq: Math.max(0, history.length - plan.historyBase) },
  };
}

/** The job data of a prepared task: its text, settings, checkpoint, memory and code, checked. */
export function jobDataOf(task: Task, prepared: HostPrepared): JobData {
  return buildJobData({
    taskId: task.id,
    fileName: basename(task.file),
    taskText: prepared.text,
    settings: prepared.settings,
    account: accountOf(prepared.settings.harness),
    checkpoint: prepared.checkpoint,
    memory: sessionMemory(prepared.session),
    code: { ...prepared.code, commit: prepared.record.commit },
    seq: prepared.record.seq,
    generationBase: prepared.record.generation,
  });
}

export function sessionMemory(session: OpenedSession): MemoryFiles {
  const paths = session.store.paths;
  if (paths === null) return { prd: null, progress: null, context: null };
  return {
    prd: readMemoryText(paths.prd),
    progress: readMemoryText(paths.progress),
    context: readMemoryText(paths.context),
  };
}

const QUEUE_FILE = 'queue.json';

export async function readQueueRecord(session: OpenedSession): Promise<QueueRecord> {
  const dir = session.store.paths?.dir;
  const none: QueueRecord = { generation: 0, seq: 0, commit: null };
  if (dir === undefined) return none;
  try {
    const value = JSON.parse(await readFile(resolve(dir, QUEUE_FILE), 'utf8')) as Partial<QueueRecord>;
    return {
      generation: typeof value.generation === 'number' ? value.generation : 0,
      seq: typeof value.seq === 'number' ? value.seq : 0,
      commit: typeof value.commit === 'string' ? value.commit : null,
    };
  } catch {
    return none;
  }
}

export async function writeQueueRecord(session: OpenedSession, record: QueueRecord): Promise<void> {
  const dir = session.store.paths?.dir;
  if (dir !== undefined) await writeFileAtomic(resolve(dir, QUEUE_FILE), `${JSON.stringify(record)}\n`);
}

/** The URL or path of the workdir's `origin`, as every worker will fetch it. */
async function originOf(workdir: string): Promise<string> {
  const result = await git(workdir, ['remote', 'get-url', 'origin']).catch((error: unknown) => {
    if (isWiggumError(error)) throw error;
    return { exitCode: 1, stdout: '', stderr: String(error) };
  });
  const url = result.stdout.trim();
  if (result.exitCode !== 0 || url === '')
    throw new WiggumError(
      'E_WORKDIR',
      `${workdir} has no git remote "origin": a task run on workers works in a clone of a remote every worker reaches; add one (git remote add origin URL) and push the base branch`,
    );
  // A local path is made absolute: a worker's clone is elsewhere.
  const shown =
    /^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/]+@[^:]+:/.test(url) || isAbsolute(url) ? url : resolve(workdir, url);
  if (!REMOTE_PATTERN.test(shown))
    throw new WiggumError('E_WORKDIR', `the origin of ${workdir}, "${url}", is not a git remote a worker can be given`);
  return shown;
}

/** The workdir's current branch when its remote has it too (a new task branch starts there), else null. */
async function remoteBaseOf(workdir: string): Promise<string | null> {
  const branch = await currentBranch(workdir);
  if (branch === null) return null;
  const result = await git(workdir, ['ls-remote', 'origin', `refs/heads/${branch}`]);
  return result.exitCode === 0 && result.stdout.trim() !== '' ? branch : null;
}
