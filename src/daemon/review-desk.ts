import { open, readdir } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import type { Logger } from '../log/logger.js';
import { readTaskFile } from '../task/read.js';
import type { VaultLayout } from '../vault/layout.js';
import { isTaskFileName } from '../vault/names.js';
import { awaitsApprovalMark, markApproved } from '../vault/review-moves.js';

/**
 * Whether new tasks are held because `maxPending` tasks wait in Review/ (null: no limit). Pure:
 * table-tested in test/daemon/review-desk.test.ts.
 */
export function reviewHolds(pending: number, maxPending: number | null): boolean {
  return maxPending !== null && pending >= maxPending;
}

/** What status and the Dashboard say of a task held for `review.max_pending`. */
export function reviewHoldText(pending: number, maxPending: number): string {
  return `held: ${pending} of review.max_pending ${maxPending} tasks wait in Review/; approve one (move it to Done/ or wiggum approve ID) or request changes, and it starts`;
}

/** A task the daemon did not start because too many wait for review. */
export interface HeldTask {
  name: string;
  file: string;
}

/**
 * The daemon's side of Review/: how many tasks wait there (for `review.max_pending`), the tasks held
 * meanwhile, and approvals by hand: a task a person moved from Review/ to Done/ is marked approved
 * (state Done) the first time a sweep sees it in Done/ still saying Review. Each name in Done/ is
 * read once per daemon start; after that only names new to Done/ are.
 */
export class ReviewDesk {
  private pending = new Set<string>();
  private readonly doneSeen = new Set<string>();
  private held: HeldTask[] = [];

  constructor(
    private readonly layout: VaultLayout,
    private readonly logger: Logger,
  ) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  /** A task this daemon just sent to Review/: counted before the next task may start. */
  noteReview(file: string): void {
    this.pending.add(basename(file));
  }

  hold(task: HeldTask): void {
    if (!this.held.some((other) => other.file === task.file)) this.held.push(task);
  }

  /** The held tasks, in the order they were held, handed back to be started (and forgotten here). */
  release(): HeldTask[] {
    const released = this.held;
    this.held = [];
    return released;
  }

  get heldCount(): number {
    return this.held.length;
  }

  /** Reads Review/ and the names new to Done/; marks approved what a person moved to Done/. */
  async sweep(): Promise<void> {
    await this.countPending();
    for (const name of await names(this.layout.done)) {
      if (this.doneSeen.has(name) || !isTaskFileName(name)) continue;
      if (await this.approveIfMoved(join(this.layout.done, name))) this.doneSeen.add(name);
    }
  }

  /** Reads Review/ only: how many tasks wait there (cheap: one readdir). */
  async countPending(): Promise<void> {
    this.pending = new Set((await names(this.layout.review)).filter(isTaskFileName));
  }

  /** True once the file needs nothing more (marked, or not a task waiting for its mark). */
  private async approveIfMoved(file: string): Promise<boolean> {
    // Done/ may hold thousands of finished tasks, each looked at once per start: only the head of
    // the file is read unless it may say Review (a full read and parse costs ten times more).
    if (!(await mayAwaitApproval(file))) return true;
    try {
      const read = await readTaskFile(file);
      if (!read.result.ok || !awaitsApprovalMark(read.result.task)) return true;
      await markApproved(read.result.task);
      this.logger.info(
        { event: 'task.approved', taskId: read.result.task.id, file },
        `${relative(this.layout.root, file)} was moved out of review into Done/: approved`,
      );
      return true;
    } catch (error) {
      this.logger.warn(
        { event: 'task.approve-failed', file, err: error },
        `could not mark ${relative(this.layout.root, file)} approved; trying again at the next scan`,
      );
      return false;
    }
  }
}

async function names(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => [] as string[]);
}

const HEAD_BYTES = 4096;

/**
 * Whether the frontmatter at the head of `file` may say the task waits for review (`state:
 * Review` or `status: review`): false settles it without a parse; true is checked by one.
 */
async function mayAwaitApproval(file: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return false; // gone meanwhile: nothing to mark
  }
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return /^\s*(state:\s*['"]?review|status:\s*['"]?review)\b/im.test(buffer.toString('utf8', 0, bytesRead));
  } finally {
    await handle.close();
  }
}
