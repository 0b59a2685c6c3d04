import { onTestFinished } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { systemClock } from '../../src/time/clock.js';
import type { VaultLayout } from '../../src/vault/layout.js';
import type { ReconcileAction } from '../../src/vault/reconcile.js';
import { watchVault } from '../../src/vault/watcher.js';
import type { Reconciled, VaultWatcher, WatchVaultOptions } from '../../src/vault/watcher.js';

/**
 * Items as they arrive, with waits for a condition on all of them so far. The guard timeout only
 * turns a hang into a failure; nothing is measured.
 */
export class EventLog<T> {
  readonly items: T[] = [];
  private readonly waiters = new Set<() => void>();

  push(...items: T[]): void {
    this.items.push(...items);
    for (const check of [...this.waiters]) check();
  }

  until(condition: (items: readonly T[]) => boolean, what: string, guardMs = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!condition(this.items)) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`gave up waiting for ${what}; so far: ${JSON.stringify(this.items.slice(-20))}`));
      }, guardMs);
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }
}

export interface WatchedVault {
  watcher: VaultWatcher;
  actions: EventLog<ReconcileAction>;
  reconciles: EventLog<Reconciled>;
  /** Resolves once an action matching `match` has arrived (earlier ones count). */
  action(match: Partial<Record<string, unknown>> & { kind: ReconcileAction['kind'] }): Promise<void>;
  count(match: Partial<Record<string, unknown>> & { kind: ReconcileAction['kind'] }): number;
}

/** Test settings: a short settle and grace; no periodic rescan, so events and timers do the work. */
export const TEST_OPTIONS = {
  settleMs: 50,
  // As a vault whose config names a default harness: tasks that name none still run.
  defaultHarness: () => 'fake',
  rescanIntervalMs: 3_600_000,
  goneGraceMs: 60_000,
  malformedGraceMs: 3_600_000,
  clock: systemClock,
  logger: silentLogger(),
} satisfies WatchVaultOptions;

/** Starts a watcher on `layout` (closed when the test ends) and waits until it is ready. */
export async function startWatching(
  layout: VaultLayout,
  options: Partial<WatchVaultOptions> = {},
  onActions?: (actions: ReconcileAction[]) => void,
): Promise<WatchedVault> {
  const actions = new EventLog<ReconcileAction>();
  const reconciles = new EventLog<Reconciled>();
  const watcher = watchVault(
    layout,
    { ...TEST_OPTIONS, ...options, onReconcile: (reconciled) => reconciles.push(reconciled) },
    (batch) => {
      actions.push(...batch);
      onActions?.(batch);
    },
  );
  onTestFinished(() => watcher.close());
  await watcher.ready;
  const matches = (match: Record<string, unknown>) => (action: ReconcileAction) =>
    Object.entries(match).every(([key, value]) => (action as unknown as Record<string, unknown>)[key] === value);
  return {
    watcher,
    actions,
    reconciles,
    action: (match) => actions.until((items) => items.some(matches(match)), `action ${JSON.stringify(match)}`),
    count: (match) => actions.items.filter(matches(match)).length,
  };
}
