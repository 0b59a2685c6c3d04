import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { WiggumConfig } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import { plural } from '../plural.js';
import { parseQueueUrl } from '../queue/address.js';
import type { QueueAddress } from '../queue/address.js';
import type { QueueHost } from '../queue/queue-host.js';
import { Releasers } from '../releasers.js';
import { TypedEvents } from '../typed-events.js';
import type { DaemonEvents } from './events.js';
import { sweepStaleTemps } from '../store/stale-temps.js';
import type { Clock } from '../time/clock.js';
import { finishCutMoves } from '../vault/cut-moves.js';
import type { VaultLayout } from '../vault/layout.js';
import { acquireVaultLock } from './lock.js';
import { reclaimOrphanWorktrees } from './orphan-worktrees.js';

/* What `startDaemon` does before the daemon's own parts start: its events and releasers, folders, the vault lock, a tidy vault, the queue. */

/** The daemon's typed events: a listener that throws is logged, and the daemon goes on. */
export function daemonEvents(logger: Logger): TypedEvents<DaemonEvents> {
  return new TypedEvents<DaemonEvents>((error, event) =>
    logger.error(
      { event: 'daemon.listener-failed', err: error, daemonEvent: event },
      'a daemon event listener threw; the daemon goes on',
    ),
  );
}

/** The daemon's one `Releasers`: each part released is an event; one whose release threw is logged and added to `failures`. */
export function daemonReleasers(events: TypedEvents<DaemonEvents>, logger: Logger, failures: string[]): Releasers {
  return new Releasers(
    (part) => events.emit('released', { part }),
    (error, part) => {
      failures.push(part);
      logger.error(
        { event: 'daemon.release-failed', err: error, part },
        `releasing ${part} failed; shutting down the rest`,
      );
    },
  );
}

export async function makeVaultFolders(layout: VaultLayout): Promise<void> {
  await Promise.all(
    [layout.approved, layout.done, layout.rejected, layout.state, layout.blocked].map((dir) =>
      mkdir(dir, { recursive: true }),
    ),
  );
  await mkdir(layout.review, { recursive: true });
}

/** `--queue`, else `queue.url`; null: tasks run in this process. Checked before anything starts: a mistyped URL is said at once. */
export function queueAddressOf(flag: string | undefined, config: WiggumConfig): QueueAddress | null {
  const queueUrl = flag ?? config.queue.url;
  return queueUrl === null || queueUrl === '' ? null : parseQueueUrl(queueUrl);
}

/** Takes the vault lock (a stale one over), released last. */
export async function lockVault(layout: VaultLayout, logger: Logger, releasers: Releasers): Promise<void> {
  const lock = await acquireVaultLock(layout.lockFile);
  releasers.add('vault lock', () => lock.release());
  if (lock.tookOverFrom !== null)
    logger.warn(
      { event: 'vault-lock.taken-over', stale: lock.tookOverFrom },
      `took over a stale lock left by pid ${lock.tookOverFrom.pid}, which is no longer running`,
    );
}

/**
 * Under the lock, so that no other wiggum writes into these folders now: removes the temp files an
 * interrupted write left, finishes the moves a crash cut short, and reclaims the worktrees of
 * tasks that are gone, before any task runs (a task never meets its worktree half closed).
 */
export async function tidyVault(
  layout: VaultLayout,
  config: WiggumConfig,
  logger: Logger,
  clock: Clock,
): Promise<void> {
  for (const dir of [layout.approved, layout.done, layout.rejected]) {
    const removed = sweepStaleTemps(dir);
    if (removed.length > 0)
      logger.info(
        { event: 'vault.temp-files-removed', dir, removed },
        `removed ${plural(removed.length, 'temp file')} left by an interrupted write`,
      );
  }
  await finishCutMoves({ layout, logger, clock }).catch((error: unknown) =>
    logger.error(
      { event: 'task.move-unfinished', err: error },
      'could not finish a move to Done/ or Rejected/ that a crash cut short; the file stays in Approved/ beside its twin',
    ),
  );
  await reclaimOrphanWorktrees(layout, config, logger);
}

/**
 * With an address, the queue's host: its connection is released, and it holds while the vault's
 * STOP exists. Loaded only then: BullMQ and its Redis client are not the in-process daemon's to pay for.
 */
export async function openQueue(
  address: QueueAddress | null,
  config: WiggumConfig,
  layout: VaultLayout,
  logger: Logger,
  releasers: Releasers,
): Promise<QueueHost | null> {
  if (address === null) return null;
  const queueHost = (await import('../queue/queue-host.js')).openQueueHost(address, config, logger);
  releasers.add('queue connection', () => queueHost.close());
  queueHost.hold(existsSync(layout.stopFile));
  logger.info(
    { event: 'queue.opened', queue: queueHost.address.shown },
    `task runs go to workers through ${queueHost.address.shown} (wiggum worker --queue ${queueHost.address.shown})`,
  );
  return queueHost;
}
