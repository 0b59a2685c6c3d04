import { join } from 'node:path';
import { figuresOf } from '../stats/figures.js';
import type { Figures, TaskEnding } from '../stats/figures.js';
import { endingFolders, readTaskFacts, taskNamesIn } from '../stats/read-facts.js';
import type { FileFacts } from '../stats/read-facts.js';
import type { VaultLayout } from '../vault/layout.js';

const FILES_BETWEEN_YIELDS = 20;

/**
 * The Dashboard's headline figures (success rate, finished and rejected, cost per finished task),
 * kept by the daemon without reading 10,000 files on every write: each task file in Done/, Review/
 * and Rejected/ is read once (the first refresh, in the background at start), then a refresh lists
 * the three folders and reads only names new to them, forgets the gone ones, and reads again the
 * files it is told changed (a task that just ended here under a name it had before).
 */
export class StatsKeeper {
  private readonly files = new Map<string, FileFacts>();
  private figures: Figures | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly layout: VaultLayout,
    private readonly defaultHarness: () => string | null,
  ) {}

  /** Undefined until the first refresh ended. */
  get headline(): Figures | undefined {
    return this.figures;
  }

  /**
   * Brings the figures up to date with the folders, `changed` files read again; refreshes run one at
   * a time. Resolves true when the figures changed; never rejects (a file that cannot be read counts as such).
   */
  refresh(changed: readonly string[] = []): Promise<boolean> {
    const next = this.queue.then(() => this.refreshNow(changed));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Ends the refresh under way at its next file and refuses new ones: the daemon's release. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
  }

  private async refreshNow(changed: readonly string[]): Promise<boolean> {
    if (this.stopped) return false;
    const present = new Map<string, TaskEnding>();
    for (const [ending, folder] of Object.entries(endingFolders(this.layout)) as [TaskEnding, string][])
      for (const name of await taskNamesIn(folder)) present.set(join(folder, name), ending);
    let different = this.figures === undefined;
    for (const file of [...this.files.keys()])
      if (!present.has(file)) {
        this.files.delete(file);
        different = true;
      }
    const again = new Set(changed);
    const toRead = [...present].filter(([file]) => !this.files.has(file) || again.has(file));
    // The reads are synchronous (read-facts.ts): the event loop is let go every few files, so a first
    // refresh over a large vault runs beside the daemon's tasks.
    let sinceYield = 0;
    for (const [file, ending] of toRead) {
      if (sinceYield === FILES_BETWEEN_YIELDS) {
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      sinceYield += 1;
      if (this.stopped) return false;
      this.files.set(file, await readTaskFacts(file, ending, this.layout.sessions, this.defaultHarness()));
      different = true;
    }
    if (different) this.figures = figuresOf([...this.files.values()].map((one) => one.facts));
    return different;
  }
}
