import { basename, join } from 'node:path';
import { figuresOf } from '../stats/figures.js';
import type { Figures, TaskEnding, TaskFacts } from '../stats/figures.js';
import { endingFolders, readTaskFacts, taskNamesIn } from '../stats/read-facts.js';
import type { VaultLayout } from '../vault/layout.js';
import { ownCopy } from '../own-copy.js';

const FILES_BETWEEN_YIELDS = 20;

/**
 * The Dashboard's headline figures (success rate, finished and rejected, cost per finished task),
 * kept by the daemon without reading 10,000 files on every write: each task file in Done/, Review/
 * and Rejected/ is read once (the first refresh, in the background at start), then a refresh lists
 * the three folders and reads only names new to them, forgets the gone ones, and reads again the
 * files it is told changed (a task that just ended here under a name it had before).
 *
 * What it keeps per file is small, as a daemon holds it for every ended task (9,000 in the bench's
 * vault): the facts alone, under the file's name in its folder (not its path), with one string per
 * harness name shared by all the tasks it ran.
 */
export class StatsKeeper {
  private readonly folders = new Map<TaskEnding, Map<string, TaskFacts>>();
  private readonly harnessNames = new Map<string, string>();
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
    let different = this.figures === undefined;
    const toRead: { ending: TaskEnding; folder: string; name: string }[] = [];
    for (const [ending, folder] of Object.entries(endingFolders(this.layout)) as [TaskEnding, string][]) {
      const present = new Set(await taskNamesIn(folder));
      let known = this.folders.get(ending);
      if (known === undefined) {
        known = new Map();
        this.folders.set(ending, known);
      }
      for (const name of known.keys())
        if (!present.has(name)) {
          known.delete(name);
          different = true;
        }
      const again = new Set(
        changed.filter((file) => join(folder, basename(file)) === file).map((file) => basename(file)),
      );
      for (const name of present) if (!known.has(name) || again.has(name)) toRead.push({ ending, folder, name });
    }
    // The reads are synchronous (read-facts.ts): the event loop is let go every few files, so a first
    // refresh over a large vault runs beside the daemon's tasks.
    let sinceYield = 0;
    for (const { ending, folder, name } of toRead) {
      if (sinceYield === FILES_BETWEEN_YIELDS) {
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      sinceYield += 1;
      if (this.stopped) return false;
      const { facts } = await readTaskFacts(join(folder, name), ending, this.layout.sessions, this.defaultHarness());
      this.folders.get(ending)?.set(name, { ...facts, harness: this.harnessName(facts.harness) });
      different = true;
    }
    if (different) this.figures = figuresOf([...this.folders.values()].flatMap((known) => [...known.values()]));
    return different;
  }

  /** The one kept string for a harness name (a name read from a file may hold on to the text it was cut from). */
  private harnessName(name: string): string {
    let kept = this.harnessNames.get(name);
    if (kept === undefined) {
      kept = ownCopy(name);
      this.harnessNames.set(kept, kept);
    }
    return kept;
  }
}
