import { dirname, join } from 'node:path';
import { systemErrorCode } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../time/clock.js';
import { coalesce } from './coalesce.js';
import { createFileEventSource, resolveWatchedPaths } from './file-events.js';
import type { FileEventSource, FileEventSourceFactory } from './file-events.js';
import type { VaultLayout } from './layout.js';
import { isDueForRead, markFinished, markStopped, plan } from './reconcile.js';
import type { KnownTask, ReconcileAction } from './reconcile.js';
import { scanApproved } from './scan.js';
import type { ScanOptions, VaultSnapshot } from './scan.js';
import { linkRefusalText } from './links.js';
import type { LinkRefusal } from './links.js';

export interface WatchVaultOptions {
  settleMs: number;
  composeQuietMs?: number; // see ReconcileSettings.composeQuietMs; 0 by default
  /** The configured harness.default (null: none), read at each scan so that a reload applies. */
  defaultHarness?: () => string | null;
  sandboxBlocked?: ScanOptions['sandboxBlocked']; // whether a task on a harness waits for the sandbox
  rescanIntervalMs: number;
  goneGraceMs: number;
  malformedGraceMs: number;
  clock: Clock;
  logger: Logger;
  /** File events within this window share one reconciliation. Default 25 ms. */
  debounceMs?: number;
  /** The rescan interval once the file watcher has failed (events can no longer be trusted). Default 2 s. */
  degradedRescanIntervalMs?: number;
  /** Called after every reconciliation (status pages, tests that wait for a state). */
  onReconcile?: (reconciled: Reconciled) => void;
  /** Where file events come from; chokidar and a watch of the vault root by default. */
  fileEvents?: FileEventSourceFactory;
}

/** One reconciliation, as seen by `onReconcile`. */
export interface Reconciled {
  snapshot: VaultSnapshot;
  actions: ReconcileAction[];
  known: ReadonlyMap<string, KnownTask>;
  /** Files in Approved/ that are never run because they are links (src/vault/links.ts), by name. */
  refused: ReadonlyMap<string, LinkRefusal>;
  nextCheckAtMs: number | null;
}

export interface VaultWatcher {
  /** Resolves once the file watches are in place and the first reconciliation has run. Never rejects. */
  ready: Promise<void>;
  /** Reconciles now (after any reconciliation under way) and resolves when that one has run. */
  rescan(): Promise<void>;
  /** Stops watching; no `onActions` call happens after it resolves. */
  close(): Promise<void>;
  /** A task's run ended and its file was moved out of Approved/: forget it (see `markFinished`). */
  markFinished(name: string): void;
  /** A task's run ended because of its stop flag: removing the flag resumes it. */
  markStopped(name: string): void;
  /** The latest scan, or null before the first one. */
  snapshot(): VaultSnapshot | null;
}

const DEFAULT_DEBOUNCE_MS = 25;
const DEFAULT_DEGRADED_RESCAN_INTERVAL_MS = 2_000;

/**
 * Keeps Approved/ in view and tells `onActions` what to start, stop, resume or give up, and when
 * the vault's STOP file comes or goes. A reconciliation (scan + `plan`) runs at start, shortly after
 * file events, on a periodic rescan (Linux can drop inotify events silently) and when a settle or
 * grace period ends; two never run at once. Failures are logged, never thrown.
 */
export function watchVault(
  layout: VaultLayout,
  options: WatchVaultOptions,
  onActions: (actions: ReconcileAction[]) => void,
): VaultWatcher {
  const { clock, logger } = options;
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  let known: Map<string, KnownTask> = new Map();
  let globalStopWas = false;
  /** Links already reported, so each is said once while it stays. */
  let refusedSeen: ReadonlyMap<string, LinkRefusal> = new Map();
  let last: VaultSnapshot | null = null;
  let closed = false;
  let live = false;
  let debouncing = false;
  let degraded = false;
  let rescanIntervalMs = options.rescanIntervalMs;
  let periodic = new AbortController();
  let checkTimer: { atMs: number; controller: AbortController } | null = null;
  const closing = new AbortController();
  let source: FileEventSource | null = null;

  const reconcileOnce = async (): Promise<void> => {
    if (closed) return;
    const [nowMs, before] = [clock.now(), known];
    let snapshot: VaultSnapshot;
    try {
      snapshot = await scanApproved(layout, {
        parse: (name) => isDueForRead(before.get(name), nowMs, options.settleMs),
        known: (name) => {
          const task = before.get(name);
          return task !== undefined && task.phase !== 'settling' && task.missingSinceMs === null ? task : null;
        },
        defaultHarness: options.defaultHarness?.() ?? null,
        ...(options.sandboxBlocked && { sandboxBlocked: options.sandboxBlocked }),
        clock,
      });
    } catch (error) {
      logger.error(
        { event: 'watcher.scan-failed', err: error, folder: layout.approved },
        'could not scan the Approved folder; trying again on the next file event or rescan',
      );
      return;
    }
    if (closed) return;
    const settings = {
      settleMs: options.settleMs,
      composeQuietMs: options.composeQuietMs ?? 0,
      goneGraceMs: options.goneGraceMs,
      malformedGraceMs: options.malformedGraceMs,
      globalStopWas,
    };
    const result = plan(snapshot, known, nowMs, settings);
    known = result.known;
    globalStopWas = snapshot.globalStop;
    const refused = refusedLinks(snapshot, known);
    for (const [name, reason] of refused) {
      if (refusedSeen.get(name) !== reason)
        logger.warn(
          { event: 'watcher.link-refused', file: join(layout.approved, name), reason },
          `${name} in Approved/ is ${linkRefusalText(reason)}`,
        );
    }
    refusedSeen = refused;
    last = snapshot;
    armCheck(result.nextCheckAtMs);
    if (result.actions.length > 0) {
      logger.debug({ event: 'watcher.reconciled', actions: result.actions }, 'vault reconciled');
      guarded('onActions', () => onActions(result.actions));
    }
    guarded('onReconcile', () =>
      options.onReconcile?.({ snapshot, actions: result.actions, known, refused, nextCheckAtMs: result.nextCheckAtMs }),
    );
  };
  const reconcile = coalesce(async () => {
    try {
      await reconcileOnce();
    } catch (error) {
      logger.error(
        { event: 'watcher.reconcile-failed', err: error },
        'reconciling the vault failed; trying again on the next file event or rescan',
      );
    }
  });

  function guarded(what: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      logger.error(
        { event: 'watcher.listener-failed', err: error },
        `${what} threw while handling vault changes; the watcher goes on`,
      );
    }
  }

  /** One timer for the earliest end of a settle or grace period. */
  function armCheck(atMs: number | null): void {
    if (checkTimer !== null && checkTimer.atMs === atMs) return;
    checkTimer?.controller.abort();
    checkTimer = null;
    if (atMs === null || closed) return;
    const timer = { atMs, controller: new AbortController() };
    checkTimer = timer;
    clock.sleep(Math.max(0, atMs - clock.now()), timer.controller.signal).then(
      () => {
        if (checkTimer === timer) checkTimer = null;
        void reconcile();
      },
      () => undefined,
    );
  }

  function onFileEvent(): void {
    if (!live || closed || debouncing) return;
    // A window from the first event (not reset by later ones), so a flood of events cannot starve it.
    debouncing = true;
    clock.sleep(debounceMs, closing.signal).then(
      () => {
        debouncing = false;
        void reconcile();
      },
      () => undefined,
    );
  }

  /** Approved/ as chokidar names it (its real path). */
  let watchedApproved = layout.approved;

  function onWatchError(error: Error): void {
    const code = systemErrorCode(error);
    const path = (error as NodeJS.ErrnoException).path;
    if (
      (code === 'EACCES' || code === 'EPERM') &&
      path !== undefined &&
      (dirname(path) === layout.approved || dirname(path) === watchedApproved)
    ) {
      // One file the daemon may not read (or watch): the folder's own watch still sees it come,
      // go and change mode, so nothing degrades; the run says what is wrong with the file.
      logger.debug(
        { event: 'watcher.file-unwatchable', path, code },
        'cannot watch a file in Approved/ itself; the folder watch covers it',
      );
      onFileEvent();
      return;
    }
    if (degraded) {
      logger.warn({ event: 'watcher.error', err: error, code }, 'file watcher error');
      return;
    }
    degraded = true;
    rescanIntervalMs = Math.min(
      options.rescanIntervalMs,
      options.degradedRescanIntervalMs ?? DEFAULT_DEGRADED_RESCAN_INTERVAL_MS,
    );
    const hint = code === 'ENOSPC' ? ' (the inotify watch limit: raise fs.inotify.max_user_watches)' : '';
    logger.warn(
      { event: 'watcher.degraded', err: error, code, rescanIntervalMs },
      `file watcher failed${hint}; Approved/ is now rescanned every ${rescanIntervalMs} ms instead`,
    );
    const old = periodic;
    periodic = new AbortController();
    old.abort();
  }

  async function rescanPeriodically(): Promise<void> {
    while (!closed) {
      try {
        await clock.sleep(rescanIntervalMs, periodic.signal);
      } catch {
        continue; // the interval changed, or closing (the loop condition ends it)
      }
      await reconcile();
    }
  }

  async function start(): Promise<void> {
    try {
      const paths = await resolveWatchedPaths(layout.approved, layout.root, [layout.done, layout.rejected]);
      watchedApproved = paths.approved;
      if (closed) return;
      const created = (options.fileEvents ?? createFileEventSource)(paths);
      source = created;
      const readyOrFailed = new Promise<void>((resolve) => {
        created.onReady(resolve);
        // A watcher that fails before it is ready (ENOSPC) may never be: go on with rescans alone.
        created.onError(() => resolve());
        closing.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      created.onChange(onFileEvent);
      created.onError(onWatchError);
      await readyOrFailed;
    } catch (error) {
      onWatchError(error instanceof Error ? error : new Error(String(error)));
    }
    if (closed) return;
    live = true;
    await reconcile();
    void rescanPeriodically();
  }

  return {
    ready: start(),
    rescan: () => reconcile(),
    close: async () => {
      if (closed) return;
      closed = true;
      closing.abort();
      periodic.abort();
      checkTimer?.controller.abort();
      checkTimer = null;
      await source
        ?.close()
        .catch((error: unknown) =>
          logger.warn({ event: 'watcher.close-failed', err: error }, 'closing the file watcher failed'),
        );
      // Let a reconciliation under way finish (it delivers nothing once closed).
      await reconcile();
    },
    markFinished: (name) => {
      known = markFinished(known, name);
    },
    markStopped: (name) => {
      known = markStopped(known, name);
    },
    snapshot: () => last,
  };
}

/**
 * The links in Approved/ that are refused: every symbolic link, and every file with another hard
 * link that is not a task already handed over (a backup tool linking a running task's file, or
 * wiggum's own move to Done/ under way, leaves that task alone).
 */
export function refusedLinks(snapshot: VaultSnapshot, known: ReadonlyMap<string, KnownTask>): Map<string, LinkRefusal> {
  const refused = new Map<string, LinkRefusal>();
  for (const name of [...snapshot.symlinks].sort()) refused.set(name, 'symlink');
  for (const name of [...snapshot.linked].sort()) if (!known.has(name)) refused.set(name, 'hard-link');
  return refused;
}
