import type { IterationRecord } from './history.js';
import type { SessionPaths } from './paths.js';
import type { Prd } from './prd.js';

/**
 * One task's session memory. prd.json, progress.txt and context.md are also edited by the agent
 * and the user (other processes), so every load reads the current state: nothing is cached.
 */
export interface MemoryStore {
  /** False for the in-memory fallback: nothing survives the process. */
  readonly durable: boolean;
  /** null in memory. */
  readonly paths: SessionPaths | null;
  /** Reloaded every iteration and validated every time (E_MEMORY_CORRUPT on a bad file). */
  loadPrd(): Promise<Prd>;
  savePrd(prd: Prd): Promise<void>;
  loadProgress(): Promise<string>;
  /** Appends a section (see `progressSection`) after a blank line. */
  appendProgress(section: string): Promise<void>;
  loadContext(): Promise<string>;
  /** Appends the text under a timestamp line (`--add-context`). */
  addContext(text: string): Promise<void>;
  clearContext(): Promise<void>;
  appendHistory(record: IterationRecord): Promise<void>;
  loadHistory(): Promise<IterationRecord[]>;
  /** `<dir>/logs/0007.log` for iteration 7 (`0007.retry1.log` for its first retry); null in memory. */
  logFile(iteration: number, attempt: number): string | null;
  /**
   * After each agent run: copies memory the agent keeps outside the session folder (in its
   * workdir, `memory.in_workdir`) back into it. Absent when everything is in the session folder.
   */
  mirror?(): Promise<void>;
}
