import type { LoopEvent, TaskRunResult } from '../loop/events.js';
import type { ReconcileAction } from '../vault/reconcile.js';
import type { Lifecycle } from './status.js';

/** What a running daemon tells its observers (tests await these instead of sleeping). */
export interface DaemonEvents {
  /** starting → running → draining → stopped. */
  lifecycle: { state: Lifecycle };
  /** A reconciliation of Approved/ decided these actions. */
  actions: { actions: ReconcileAction[] };
  queued: { taskId: string; name: string; file: string };
  /** Everything a task's loop reports while it runs. */
  loop: LoopEvent;
  /** A task's run is over: `result` when the loop returned, `error` when it failed or was refused. */
  settled: { taskId: string; name: string; result: TaskRunResult | null; error: unknown };
  /** One part of the daemon was released during shutdown, in reverse start order. */
  released: { part: string };
}
