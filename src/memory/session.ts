import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { WiggumError, isWiggumError, systemErrorCode } from '../errors.js';
import { syncDirectory, tempPathFor, writeNewFileDurably } from '../store/atomic-write.js';
import { isoSeconds } from '../time/clock.js';
import type { Clock } from '../time/clock.js';
import { archiveSession } from './archive.js';
import { DiskMemoryStore } from './disk-store.js';
import { checkSchema } from './json-text.js';
import { InMemoryStore } from './memory-store.js';
import type { SessionPaths } from './paths.js';
import { pathsIn, sessionPaths } from './paths.js';
import { pointRunLink } from './run-link.js';
import type { Prd } from './prd.js';
import { prdSchema, serializePrd } from './prd.js';
import { progressHeader } from './progress.js';
import type { SessionMeta } from './session-meta.js';
import type { MemoryLimits } from './limits.js';
import { missingFile, parseSessionMeta, readMemoryText, serializeSessionMeta } from './session-meta.js';
import type { MemoryStore } from './store.js';

export interface OpenSessionOptions {
  /** `<vault>/.wiggum/sessions` */
  sessionsRoot: string;
  /** `<vault>/.wiggum/archive` */
  archiveRoot: string;
  taskId: string;
  taskFile: string;
  /** The session to resume (from the task's checkpoint); undefined starts a new loop. */
  sessionId?: string | undefined;
  /** The id a new session gets. */
  newSessionId: string;
  branchName: string | null;
  /** The prd.json a new session starts from; only called when a session is created. */
  initialPrd: () => Promise<Prd> | Prd;
  backend: 'disk' | 'memory';
  clock: Clock;
  limits?: MemoryLimits | undefined; // memory.limits; the defaults when not given
}

export interface OpenedSession {
  store: MemoryStore;
  /** The session the store belongs to: `sessionId` when resumed, `newSessionId` when created. */
  sessionId: string;
  created: boolean;
  /** Where an earlier session's folder was moved, if one was. */
  archivedTo: string | null;
  /**
   * This run's permanent address, `.wiggum/runs/<date>-<id>-<run>` (run-link.ts): the folder that
   * holds its memory, now and after the id runs again. Null when the memory is not on disk or the
   * link could not be made (the session folder is named instead).
   */
  runDir: string | null;
  /** Set when the memory is not durable: a message to show loudly. */
  warning: string | null;
}

/** Errors that mean "this storage cannot be written", as opposed to a bug or a corrupt file. */
const UNAVAILABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR', 'EEXIST']);

/**
 * Opens a task's session memory: resumes the folder when it belongs to `sessionId` on the same
 * branch, otherwise archives whatever is there and creates a new session. A corrupt file on resume
 * is E_MEMORY_CORRUPT (never archived or reset silently). When the folder cannot be written, or the
 * backend is 'memory', the memory is kept in the process only and `warning` says so.
 */
export async function openSession(options: OpenSessionOptions): Promise<OpenedSession> {
  if (options.backend === 'memory') {
    return freshInMemory(
      options,
      'the memory backend is set to "memory"',
      'set the memory backend to "disk" to make session memory durable',
      null,
    );
  }
  const paths = sessionPaths(options.sessionsRoot, options.taskId);
  try {
    await mkdir(options.sessionsRoot, { recursive: true });
  } catch (error) {
    return fallbackOr(error, options, `${options.sessionsRoot} cannot be created`, null);
  }

  const pendingContext = await pendingContextIn(paths);
  const existing = pendingContext === null ? await inspect(paths) : ({ exists: false } as const);
  if (existing.exists && options.sessionId !== undefined) {
    if (existing.problem !== null) throw existing.problem;
    const meta = existing.meta;
    if (
      meta !== null &&
      meta.sessionId === options.sessionId &&
      meta.taskId === options.taskId &&
      meta.branchName === options.branchName
    ) {
      // A session from before runs had links gets one now; the link is best effort.
      const runDir = await pointRunLink(options.sessionsRoot, meta, paths.dir).catch(() => null);
      return { ...(await resume(paths, options.sessionId, options)), runDir };
    }
  }

  let archivedTo: string | null = null;
  if (existing.exists) {
    try {
      archivedTo = await archiveSession(options);
    } catch (error) {
      return fallbackOr(
        error,
        options,
        `the old session folder ${paths.dir} cannot be moved to ${options.archiveRoot}`,
        null,
      );
    }
  }
  const prd = checkSchema(prdSchema, await options.initialPrd(), `${paths.prd} (initial)`);
  let runDir: string | null;
  try {
    runDir = await createSession(paths, options, prd, pendingContext ?? '');
  } catch (error) {
    return fallbackOr(error, options, `${paths.dir} cannot be written`, archivedTo, prd);
  }
  return {
    store: new DiskMemoryStore(paths, options.clock, options.limits),
    sessionId: options.newSessionId,
    created: true,
    archivedTo,
    runDir,
    warning: null,
  };
}

/**
 * Context added (`wiggum context add`, `ralph --add-context`) before a task's first run waits in
 * its session folder as a lone context.md. Returns that text, or null when the folder is anything else.
 */
async function pendingContextIn(paths: SessionPaths): Promise<string | null> {
  let entries: string[];
  try {
    entries = await readdir(paths.dir);
  } catch {
    return null;
  }
  if (entries.length !== 1 || entries[0] !== 'context.md') return null;
  const text = readMemoryText(paths.context);
  return text === null || text.trim() === '' ? null : text;
}

type Existing = { exists: false } | { exists: true; meta: SessionMeta | null; problem: WiggumError | null };

async function inspect(paths: SessionPaths): Promise<Existing> {
  try {
    await lstat(paths.dir);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return { exists: false };
    throw error;
  }
  try {
    const text = readMemoryText(paths.sessionFile);
    if (text === null)
      return {
        exists: true,
        meta: null,
        problem: missingFile(paths.sessionFile, 'it says which session the folder belongs to'),
      };
    return { exists: true, meta: parseSessionMeta(text, paths.sessionFile), problem: null };
  } catch (error) {
    if (isWiggumError(error)) return { exists: true, meta: null, problem: error };
    throw error;
  }
}

/** Resumes a session: validates what is there, changes nothing, and checks the folder can still be written. */
async function resume(paths: SessionPaths, sessionId: string, options: OpenSessionOptions): Promise<OpenedSession> {
  const disk = new DiskMemoryStore(paths, options.clock, options.limits);
  const prd = await disk.loadPrd();
  const history = await disk.loadHistory();
  try {
    await mkdir(paths.logs, { recursive: true });
    await probeWritable(paths.dir);
  } catch (error) {
    const reason = unavailableCode(error);
    if (reason === null) throw error;
    // Readable but not writable: carry on from what is on disk, in memory only.
    const store = new InMemoryStore(
      { prd, progress: await disk.loadProgress(), context: await disk.loadContext(), history },
      options.clock,
    );
    const warning = notDurable(
      options.taskId,
      `${paths.dir} can be read but not written (${reason})`,
      writableFix(paths.dir),
    );
    return { store, sessionId, created: false, archivedTo: null, runDir: null, warning };
  }
  return { store: disk, sessionId, created: false, archivedTo: null, runDir: null, warning: null };
}

/**
 * Builds the session in a hidden folder and renames it into place, so a crash never leaves half a
 * session. Returns the run's link (run-link.ts), or null when it could not be made.
 */
async function createSession(
  paths: SessionPaths,
  options: OpenSessionOptions,
  prd: Prd,
  context: string,
): Promise<string | null> {
  const temp = join(options.sessionsRoot, `.${options.taskId}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const now = options.clock.now();
  const meta: SessionMeta = {
    sessionId: options.newSessionId,
    taskId: options.taskId,
    taskFile: options.taskFile,
    branchName: options.branchName,
    createdAt: isoSeconds(now),
  };
  await mkdir(temp);
  try {
    const staged = pathsIn(temp);
    await mkdir(staged.logs);
    // The staging folder is invisible until the rename: plain durable writes, all at once.
    await Promise.all([
      writeNewFileDurably(staged.prd, serializePrd(prd)),
      writeNewFileDurably(staged.progress, progressHeader(now)),
      writeNewFileDurably(staged.context, context),
      writeNewFileDurably(staged.history, ''),
      writeNewFileDurably(staged.sessionFile, serializeSessionMeta(meta)),
    ]);
    await syncDirectory(temp);
    if (context !== '') {
      // The folder holds only context added before the first run: step it aside (never delete
      // it first, so a crash here cannot lose it), put the session in its place, then drop it.
      await rename(paths.dir, `${temp}.pending`);
      await rename(temp, paths.dir);
      await rm(`${temp}.pending`, { recursive: true, force: true });
    } else {
      await rename(temp, paths.dir);
    }
  } catch (error) {
    await rm(temp, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  await syncDirectory(options.sessionsRoot);
  // After the session is in place: a crash before this leaves a session without a link, which its
  // resume (or its archiving) makes; never a link to a folder that another run may take.
  return pointRunLink(options.sessionsRoot, meta, paths.dir).catch(() => null);
}

async function probeWritable(dir: string): Promise<void> {
  const probe = tempPathFor(join(dir, 'probe'));
  const handle = await open(probe, 'wx', 0o644);
  await handle.close();
  await unlink(probe);
}

/** An in-memory session when `error` means the disk cannot be written; any other error is rethrown. */
async function fallbackOr(
  error: unknown,
  options: OpenSessionOptions,
  what: string,
  archivedTo: string | null,
  prd?: Prd,
): Promise<OpenedSession> {
  const code = unavailableCode(error);
  if (code === null) throw error;
  return freshInMemory(options, `${what} (${code})`, writableFix(options.sessionsRoot), archivedTo, prd);
}

async function freshInMemory(
  options: OpenSessionOptions,
  reason: string,
  fix: string,
  archivedTo: string | null,
  prd?: Prd,
): Promise<OpenedSession> {
  const initial = prd ?? checkSchema(prdSchema, await options.initialPrd(), 'prd.json (initial)');
  const store = new InMemoryStore({ prd: initial, progress: progressHeader(options.clock.now()) }, options.clock);
  const warning = notDurable(options.taskId, reason, fix);
  return { store, sessionId: options.newSessionId, created: true, archivedTo, runDir: null, warning };
}

function notDurable(taskId: string, reason: string, fix: string): string {
  return (
    `WARNING: session memory for task ${taskId} is NOT DURABLE: ${reason}. ` +
    'prd.json, progress.txt, context.md and the iteration history are kept in memory only and are lost when wiggum stops, ' +
    `so a restart cannot resume this loop. ${fix}`
  );
}

function writableFix(path: string): string {
  return `Make ${path} writable (permissions, free space, a read-write mount) and later runs are durable again.`;
}

/** The errno of a write that failed because the storage is unavailable, else null. */
function unavailableCode(error: unknown): string | null {
  let code = systemErrorCode(error);
  if (error instanceof WiggumError && typeof error.details['errno'] === 'string') code = error.details['errno'];
  return code !== undefined && UNAVAILABLE.has(code) ? code : null;
}
