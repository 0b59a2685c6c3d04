import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isWiggumError } from '../errors.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { Clock } from '../time/clock.js';
import { DiskMemoryStore } from './disk-store.js';
import { seedFrom, workdirMemoryDir } from './memory-place.js';
import type { SessionPaths } from './paths.js';
import type { MemoryLimits } from './limits.js';
import type { Prd } from './prd.js';
import { parsePrd } from './prd.js';
import { missingFile, readMemoryText } from './session-meta.js';

/**
 * Session memory whose prd.json and progress.txt live in the agent's workdir (`.ralph/<task id>/`), so the
 * agent's commit carries them; context.md, the history and the logs stay in the session folder.
 * The workdir's copies are the truth while the task runs; the session folder keeps a copy of each,
 * written after every agent run and every write of the loop's own (`mirror`), so that `status`,
 * the reports and a person reading the vault find them there, also once the worktree is gone.
 */
export class WorkdirMemoryStore extends DiskMemoryStore {
  constructor(
    /** The session folder's own files, where the copies go. */
    private readonly session: SessionPaths,
    workdirPaths: SessionPaths,
    clock: Clock,
    limits?: MemoryLimits,
  ) {
    super(workdirPaths, clock, limits);
  }

  override async savePrd(prd: Prd): Promise<void> {
    await super.savePrd(prd);
    await this.mirror();
  }

  override async appendProgress(section: string): Promise<void> {
    await super.appendProgress(section);
    await this.mirror();
  }

  /**
   * Copies the workdir's prd.json and progress.txt into the session folder when they differ. A
   * prd.json that does not parse is not copied: the loop rejects the task for it, and the session
   * keeps the last good list for the report.
   */
  async mirror(): Promise<void> {
    const prd = this.read(this.paths.prd, 'prd');
    if (prd !== null && prd !== this.read(this.session.prd, 'prd') && parses(prd, this.paths.prd))
      await writeFileAtomic(this.session.prd, prd);
    const progress = this.read(this.paths.progress, 'progress');
    if (progress !== null && progress !== this.read(this.session.progress, 'progress'))
      await writeFileAtomic(this.session.progress, progress);
  }
}

export interface OpenedWorkdirMemory {
  store: WorkdirMemoryStore;
  /** The folder the files are in. */
  dir: string;
  /** Which copy each file started from (memory-place.ts `seedFrom`). */
  seeded: { prd: 'session' | 'workdir'; progress: 'session' | 'workdir' };
}

/**
 * Puts a task's prd.json and progress.txt in `<workdir>/.ralph/<task id>/`: a new session's files are written
 * there (over whatever an earlier task left on the branch); a resumed session keeps the copies the
 * workdir already holds (a restart, a `retry` on the same branch) and takes the session's for a
 * file it lacks. The session folder's copies are then brought up to date.
 */
export async function openWorkdirMemory(
  session: SessionPaths,
  workdir: string,
  taskId: string,
  sessionCreated: boolean,
  clock: Clock,
  limits?: MemoryLimits,
): Promise<OpenedWorkdirMemory> {
  const dir = join(workdir, workdirMemoryDir(taskId));
  await mkdir(dir, { recursive: true });
  const paths: SessionPaths = { ...session, prd: join(dir, 'prd.json'), progress: join(dir, 'progress.txt') };
  const seed = async (from: string, to: string, required: boolean): Promise<'session' | 'workdir'> => {
    const where = seedFrom({ sessionCreated, inWorkdir: existsSync(to) });
    if (where === 'workdir') return where;
    const text = readMemoryText(from);
    if (text === null && required) throw missingFile(from, 'the story list of this session');
    await writeFileAtomic(to, text ?? '');
    return where;
  };
  const seeded = {
    prd: await seed(session.prd, paths.prd, true),
    progress: await seed(session.progress, paths.progress, false),
  };
  const store = new WorkdirMemoryStore(session, paths, clock, limits);
  await store.mirror();
  return { store, dir, seeded };
}

function parses(text: string, path: string): boolean {
  try {
    parsePrd(text, path);
    return true;
  } catch (error) {
    if (isWiggumError(error)) return false;
    throw error;
  }
}
