import { toError } from '../errors.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { appendJsonLine } from '../store/json-lines.js';
import type { Clock } from '../time/clock.js';
import { appendContextText } from './context.js';
import type { IterationRecord } from './history.js';
import { DEFAULT_MEMORY_LIMITS, limitOf } from './limits.js';
import type { MemoryFileKind, MemoryLimits } from './limits.js';
import { checkRecordForWrite, readHistoryFile } from './history.js';
import { checkSchema } from './json-text.js';
import type { SessionPaths } from './paths.js';
import { logFilePath } from './paths.js';
import type { Prd } from './prd.js';
import { parsePrd, prdSchema, serializePrd } from './prd.js';
import { missingFile, readMemoryText } from './session-meta.js';
import { appendSectionText } from './progress.js';
import type { MemoryStore } from './store.js';

/**
 * Session memory in a folder. Every read goes to disk (the agent edits these files between our
 * reads); every write is an atomic replace, and history lines are appended and fsynced.
 */
export class DiskMemoryStore implements MemoryStore {
  readonly durable = true;

  constructor(
    readonly paths: SessionPaths,
    private readonly clock: Clock,
    readonly limits: MemoryLimits = DEFAULT_MEMORY_LIMITS,
  ) {}

  /** A memory file's text, checked against its limit before it is read (limits.ts). */
  protected read(path: string, kind: MemoryFileKind): string | null {
    return readMemoryText(path, { kind, bytes: limitOf(this.limits, kind) });
  }

  /**
   * prd.json as last parsed: read twice an iteration, and unchanged by most runs. Still read from
   * disk every time; only the same bytes skip the parse and the schema (the loop never modifies a Prd).
   */
  private lastPrd: { text: string; prd: Prd } | null = null;

  // Reads are synchronous (small files; see readMemoryText) behind the store's async interface.
  loadPrd(): Promise<Prd> {
    return settled(() => {
      const text = this.read(this.paths.prd, 'prd');
      if (text === null) throw missingFile(this.paths.prd, 'the story list of this session');
      if (this.lastPrd?.text === text) return this.lastPrd.prd;
      const prd = parsePrd(text, this.paths.prd);
      this.lastPrd = { text, prd };
      return prd;
    });
  }

  async savePrd(prd: Prd): Promise<void> {
    const checked = checkSchema(prdSchema, prd, `${this.paths.prd} (about to be written)`);
    await writeFileAtomic(this.paths.prd, serializePrd(checked));
  }

  loadProgress(): Promise<string> {
    return settled(() => this.read(this.paths.progress, 'progress') ?? '');
  }

  async appendProgress(section: string): Promise<void> {
    const existing = await this.loadProgress();
    await writeFileAtomic(this.paths.progress, appendSectionText(existing, section));
  }

  loadContext(): Promise<string> {
    return settled(() => this.read(this.paths.context, 'context') ?? '');
  }

  async addContext(text: string): Promise<void> {
    const existing = await this.loadContext();
    await writeFileAtomic(this.paths.context, appendContextText(existing, text, this.clock.now()));
  }

  async clearContext(): Promise<void> {
    await writeFileAtomic(this.paths.context, '');
  }

  async appendHistory(record: IterationRecord): Promise<void> {
    checkRecordForWrite(record, this.paths.history);
    await appendJsonLine(this.paths.history, record);
  }

  async loadHistory(): Promise<IterationRecord[]> {
    return readHistoryFile(this.paths.history);
  }

  logFile(iteration: number, attempt: number): string {
    return logFilePath(this.paths, iteration, attempt);
  }
}

/** A synchronous read as the store's promise: a throw becomes a rejection. */
function settled<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (error) {
    return Promise.reject(toError(error));
  }
}
