import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import { noHarnessMessage } from '../task/harness-choice.js';
import { waitReasonText } from '../task/readiness.js';
import type { UnansweredReason } from '../task/readiness.js';
import type { WaitReason } from '../task/readiness.js';
import type { VaultLayout } from '../vault/layout.js';
import { linkRefusalText } from '../vault/links.js';
import type { LinkRefusal } from '../vault/links.js';
import type { KnownTask } from '../vault/reconcile.js';
import type { AuthorWait } from './status.js';

/**
 * Files in Approved/ that wait for their author (empty, naming no harness with no default
 * configured, or a link wiggum refuses), as the watcher's latest reconciliation saw them. Each file that names no harness is
 * said once in the log while it waits; an empty one is a note being started, not worth a line.
 */
export class AuthorWaits {
  private said = new Map<string, WaitReason>();

  constructor(
    private readonly layout: VaultLayout,
    private readonly logger: Logger,
  ) {}

  /** The waiting files, sorted by name, for status and the Dashboard. */
  update(known: ReadonlyMap<string, KnownTask>, refused: ReadonlyMap<string, LinkRefusal> = new Map()): AuthorWait[] {
    const waits: AuthorWait[] = [];
    // The watcher says each refused link once in the log; here they are only listed.
    for (const [name, reason] of refused)
      waits.push({ name, file: join(this.layout.approved, name), reason, message: linkRefusalText(reason) });
    const said = new Map<string, WaitReason>();
    for (const task of known.values()) {
      if (task.waiting === null) continue;
      const file = join(this.layout.approved, task.name);
      waits.push({ name: task.name, file, reason: task.waiting, message: waitReasonText(task.waiting) });
      said.set(task.name, task.waiting);
      if (task.waiting === 'no-harness' && this.said.get(task.name) !== 'no-harness')
        this.logger.warn({ event: 'task.no-harness', file, reason: task.waiting }, noHarnessMessage(task.name));
      if (task.waiting === 'no-change-request' && this.said.get(task.name) !== 'no-change-request')
        this.logger.warn(
          { event: 'task.review-returned-without-request', file, reason: task.waiting },
          `${task.name}: ${waitReasonText(task.waiting)}`,
        );
      // A blocked task moved back without an answer: said once per reason, naming the task.
      if (isUnanswered(task.waiting) && this.said.get(task.name) !== task.waiting)
        this.logger.warn(
          { event: 'task.unanswered', taskId: task.name.replace(/\.md$/i, ''), file, reason: task.waiting },
          `${task.name}: ${waitReasonText(task.waiting)}`,
        );
    }
    this.said = said;
    return waits.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Whether the file waits for its author (so an idle daemon does not count it as work to do). */
  has(name: string): boolean {
    return this.said.has(name);
  }
}

function isUnanswered(reason: WaitReason): reason is UnansweredReason {
  return reason === 'unanswered' || reason === 'answer-empty' || reason === 'answer-misplaced';
}
