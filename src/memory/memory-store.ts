import { toError } from '../errors.js';
import type { Clock } from '../time/clock.js';
import { appendContextText } from './context.js';
import type { IterationRecord } from './history.js';
import { checkRecordForWrite } from './history.js';
import { checkSchema } from './json-text.js';
import type { Prd } from './prd.js';
import { prdSchema } from './prd.js';
import { appendSectionText } from './progress.js';
import type { MemoryStore } from './store.js';

export interface InMemoryContents {
  prd: Prd;
  progress: string;
  context?: string;
  history?: readonly IterationRecord[];
}

/**
 * The fallback when no durable backend is available: the same behaviour as the disk store, but
 * everything is lost when the process ends. Values are copied in and out so that a caller
 * mutating what it loaded does not change the store behind its back.
 */
export class InMemoryStore implements MemoryStore {
  readonly durable = false;
  readonly paths = null;
  private prd: Prd;
  private progress: string;
  private context: string;
  private readonly history: IterationRecord[];

  constructor(
    contents: InMemoryContents,
    private readonly clock: Clock,
  ) {
    this.prd = structuredClone(checkSchema(prdSchema, contents.prd, 'prd.json (in memory)'));
    this.progress = contents.progress;
    this.context = contents.context ?? '';
    this.history = (contents.history ?? []).map((record) => structuredClone(record));
  }

  loadPrd(): Promise<Prd> {
    return Promise.resolve(structuredClone(this.prd));
  }

  savePrd(prd: Prd): Promise<void> {
    return attempt(() => {
      this.prd = structuredClone(checkSchema(prdSchema, prd, 'prd.json (in memory, about to be written)'));
    });
  }

  loadProgress(): Promise<string> {
    return Promise.resolve(this.progress);
  }

  appendProgress(section: string): Promise<void> {
    this.progress = appendSectionText(this.progress, section);
    return Promise.resolve();
  }

  loadContext(): Promise<string> {
    return Promise.resolve(this.context);
  }

  addContext(text: string): Promise<void> {
    return attempt(() => {
      this.context = appendContextText(this.context, text, this.clock.now());
    });
  }

  clearContext(): Promise<void> {
    this.context = '';
    return Promise.resolve();
  }

  appendHistory(record: IterationRecord): Promise<void> {
    return attempt(() => {
      checkRecordForWrite(record, 'history.jsonl (in memory)');
      this.history.push(structuredClone(record));
    });
  }

  loadHistory(): Promise<IterationRecord[]> {
    return Promise.resolve(this.history.map((record) => structuredClone(record)));
  }

  logFile(_iteration: number, _attempt: number): null {
    return null;
  }
}

/** Runs a synchronous step, turning a throw into a rejection as the disk store would. */
function attempt(step: () => void): Promise<void> {
  try {
    step();
    return Promise.resolve();
  } catch (error) {
    return Promise.reject(toError(error));
  }
}
