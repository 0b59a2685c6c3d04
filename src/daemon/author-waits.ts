import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import { noHarnessMessage } from '../task/harness-choice.js';
import { idFromFileName } from '../task/id.js';
import { passesByItself } from '../task/order.js';
import { sameWaitReason, waitReasonText } from '../task/readiness.js';
import type { UnansweredReason } from '../task/readiness.js';
import type { WaitReason } from '../task/readiness.js';
import { localStamp } from '../time/local-time.js';
import type { VaultLayout } from '../vault/layout.js';
import { linkRefusalText } from '../vault/links.js';
import type { LinkRefusal } from '../vault/links.js';
import type { KnownTask } from '../vault/reconcile.js';
import type { AuthorWait } from './status.js';

const BEING_WRITTEN =
  'its author is writing it in place: it starts once the file has been quiet for daemon.compose_quiet';

/**
 * Files in Approved/ that wait for their author (empty, naming no harness with no default
 * configured, or a link wiggum refuses), or that the order of work holds (depends_on, not_before),
 * as the watcher's latest reconciliation saw them. Each file that names no harness is said once in
 * the log while it waits, and each order wait once each time it changes; an empty one is a note
 * being started, not worth a line.
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
      // A note its author writes in place: listed (it waits on a person), but still work to come.
      if (task.phase === 'settling' && task.composing && task.waiting === null)
        waits.push({
          name: task.name,
          file: join(this.layout.approved, task.name),
          reason: 'being-written',
          message: BEING_WRITTEN,
        });
      if (task.waiting === null) continue;
      const file = join(this.layout.approved, task.name);
      const message = waitReasonText(task.waiting, localStamp);
      waits.push({ name: task.name, file, reason: task.waiting, message });
      said.set(task.name, task.waiting);
      if (sameWaitReason(this.said.get(task.name) ?? null, task.waiting)) continue;
      if (task.waiting === 'no-harness')
        this.logger.warn({ event: 'task.no-harness', file, reason: task.waiting }, noHarnessMessage(task.name));
      else if (task.waiting === 'no-change-request')
        this.logger.warn(
          { event: 'task.review-returned-without-request', file, reason: task.waiting },
          `${task.name}: ${message}`,
        );
      // A blocked task moved back without an answer: said once per reason, naming the task.
      else if (isUnanswered(task.waiting))
        this.logger.warn(
          { event: 'task.unanswered', taskId: task.name.replace(/\.md$/i, ''), file, reason: task.waiting },
          `${task.name}: ${message}`,
        );
      else if (typeof task.waiting === 'object') this.sayOrder(task.name, file, task.waiting, message);
    }
    this.said = said;
    return waits.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Whether the file waits for its author, or for something only a person can sort out (so an idle
   * daemon does not count it as work to do); a task waiting for a time or a dependency still to
   * run is work to do.
   */
  has(name: string): boolean {
    const reason = this.said.get(name);
    return reason !== undefined && (typeof reason !== 'object' || !passesByItself(reason));
  }

  private sayOrder(name: string, file: string, wait: Exclude<WaitReason, string>, message: string): void {
    const taskId = idFromFileName(name);
    if (wait.kind === 'not-before')
      this.logger.info(
        { event: 'task.order-waits', taskId, file, until: new Date(wait.atMs).toISOString() },
        `${taskId}: ${message}`,
      );
    else if (wait.kind === 'dependencies')
      this.logger.info({ event: 'task.order-waits', taskId, file, waitsFor: wait.ids }, `${taskId}: ${message}`);
    else
      this.logger.warn(
        { event: 'task.order-blocked', taskId, file, reason: wait.kind, dependencies: wait.ids },
        `${taskId} does not run: ${message}`,
      );
  }
}

function isUnanswered(reason: WaitReason): reason is UnansweredReason {
  return reason === 'unanswered' || reason === 'answer-empty' || reason === 'answer-misplaced';
}
