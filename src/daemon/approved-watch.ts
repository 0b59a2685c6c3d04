import { sandboxRefusal } from '../loop/sandbox-gate.js';
import type { VaultWatcher } from '../vault/watcher.js';
import { watchVault } from '../vault/watcher.js';
import { applyActions } from './apply-actions.js';
import type { ActionTarget } from './apply-actions.js';
import type { TaskIntake } from './intake.js';
import type { DaemonParts } from './parts.js';

/** What watching Approved/ reads and acts on in the daemon. */
export type ApprovedWatchParts = Pick<
  DaemonParts,
  | 'config'
  | 'env'
  | 'layout'
  | 'clock'
  | 'logger'
  | 'events'
  | 'tracker'
  | 'authorWaits'
  | 'queue'
  | 'draining'
  | 'changed'
> & { readonly intake: TaskIntake };

/**
 * The watcher of Approved/ (vault/watcher.ts), its timings from the config it starts with: each
 * reconciliation says who waits for their author, and what it decides is carried out by
 * `applyActions`. `holdChanged`: the vault's STOP came or went, for runs elsewhere (the queue's workers).
 */
export function watchApproved(parts: ApprovedWatchParts, holdChanged?: (on: boolean) => void): VaultWatcher {
  const { config, logger } = parts;
  const target: ActionTarget = {
    queue: parts.queue,
    tracker: parts.tracker,
    logger,
    draining: () => parts.draining,
    enqueue: (name, file) => parts.intake.enqueue(name, file),
    changed: () => parts.changed(),
    ...(holdChanged === undefined ? {} : { holdChanged }),
  };
  return watchVault(
    parts.layout,
    {
      settleMs: config.daemon.settleMs,
      composeQuietMs: config.daemon.composeQuietMs,
      defaultHarness: () => parts.config.harness.defaultName,
      sandboxBlocked: async (harness) => (await sandboxRefusal(harness, parts.config, parts.env)) !== null,
      onReconcile: (reconciled) =>
        (parts.tracker.waitingForAuthor = parts.authorWaits.update(reconciled.known, reconciled.refused)),
      rescanIntervalMs: config.daemon.rescanIntervalMs,
      goneGraceMs: Math.max(1000, config.daemon.settleMs * 5),
      malformedGraceMs: Math.max(2000, config.daemon.settleMs * 10),
      clock: parts.clock,
      logger,
    },
    (actions) => {
      parts.events.emit('actions', { actions });
      void applyActions(actions, target).catch((error: unknown) =>
        logger.error({ event: 'daemon.change-failed', err: error }, 'could not act on a change in the vault'),
      );
    },
  );
}
