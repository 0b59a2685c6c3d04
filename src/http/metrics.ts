import type { DaemonEvents } from '../daemon/events.js';
import type { VaultView } from '../daemon/view.js';
import type { LoopEvent } from '../loop/events.js';
import type { Clock } from '../time/clock.js';
import type { TypedEvents } from '../typed-events.js';
import type { VaultLayout } from '../vault/layout.js';
import { harnessLabel, runFigures } from './metric-record.js';
import { MetricSet } from './metric-set.js';
import { countDaemonStart } from './metric-starts.js';
import { OverheadTimes, PickupTimes } from './metric-timing.js';
import { queueFigures, uptimeSeconds } from './metric-view.js';

/** What the metrics read: the running daemon's events, its vault, its clock and its status view. */
export interface MetricsInputs {
  /** `RunningDaemon.events` (src/daemon/events.ts). */
  events: TypedEvents<DaemonEvents>;
  layout: VaultLayout;
  /** The clock the daemon runs on: an iteration's start time comes from it. */
  clock: Clock;
  /** What `wiggum status --json` reports (inspectOwnDaemon in src/daemon/view.ts), at most 500 ms old. */
  view: () => Promise<VaultView>;
}

export interface DaemonMetrics {
  /** The exposition text and its content type (registry.contentType). */
  render(): Promise<{ contentType: string; body: string }>;
  /** Stops listening to the events. */
  release(): void;
}

/**
 * The daemon's Prometheus metrics (docs/metrics.md). Counts this start of the daemon in
 * `.wiggum/daemon-starts`, so it is created once per daemon, after `startDaemon` took the vault
 * lock. The counters follow the daemon's events from now on, each event a few map and counter
 * updates; the gauges are read from the view and the folders when `render` is called.
 */
export async function createDaemonMetrics(inputs: MetricsInputs): Promise<DaemonMetrics> {
  const { events, layout, clock } = inputs;
  const createdAtMs = clock.now();
  const metrics = new MetricSet(await countDaemonStart(layout));
  const pickups = new PickupTimes();
  const overheads = new OverheadTimes();
  /** Each running task's harness, for the events that do not name it (a wait relayed from a worker). */
  const harnessOf = new Map<string, string>();

  const onLoop = (event: LoopEvent): void => {
    switch (event.type) {
      case 'started': {
        const harness = harnessLabel(event.harness);
        harnessOf.set(event.taskId, harness);
        metrics.harness(harness);
        const waited = pickups.started(event.taskId, clock.now());
        if (waited !== null) metrics.pickedUp(waited);
        return;
      }
      case 'iteration':
        return overheads.iteration(event.taskId, event.iteration, event.attempt, event.startedAtMs);
      case 'iteration-end': {
        metrics.run(runFigures(event.record));
        const overhead = overheads.ended(event.taskId, event.record, clock.now());
        if (overhead !== null) metrics.looped(overhead);
        return;
      }
      case 'waiting':
        if (event.why === 'usage-limit' || event.why === 'outage')
          metrics.waited(event.why, harnessLabel(event.harness ?? harnessOf.get(event.taskId)));
        return;
      case 'checkpoint':
      case 'ended':
      case 'worker':
      default:
        return;
    }
  };
  const releases = [
    events.on('queued', ({ taskId }) => pickups.queued(taskId, clock.now())),
    events.on('loop', onLoop),
    events.on('settled', ({ taskId }) => {
      pickups.forget(taskId);
      overheads.forget(taskId);
      harnessOf.delete(taskId);
    }),
  ];

  const scrape = async (): Promise<{ contentType: string; body: string }> => {
    const view = await inputs.view();
    const nowMs = clock.now();
    const startedAtMs = view.daemon?.startedAtMs ?? createdAtMs;
    metrics.scraped(view.states, queueFigures(view, nowMs), startedAtMs, uptimeSeconds(startedAtMs, nowMs));
    return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
  };
  // One scrape at a time: the gauges are set and read as one picture, never two scrapes' mixed.
  let turn: Promise<unknown> = Promise.resolve();
  return {
    render() {
      const rendered = turn.then(scrape);
      turn = rendered.catch(() => undefined);
      return rendered;
    },
    release() {
      for (const release of releases.splice(0)) release();
    },
  };
}
