import { mkdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { DaemonEvents } from '../../src/daemon/events.js';
import type { VaultView } from '../../src/daemon/view.js';
import { TASK_STATES } from '../../src/task/states.js';
import { viewOfEntries } from '../helpers/picture-view.js';
import { createDaemonMetrics } from '../../src/http/metrics.js';
import type { IterationRecord } from '../../src/memory/history.js';
import { TypedEvents } from '../../src/typed-events.js';
import { vaultLayout } from '../../src/vault/layout.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { parsePromText, sumOf, valueOf } from '../helpers/prom-text.js';
import { tempDir } from '../helpers/temp-dir.js';

const FOLDERS = { approved: 'Approved', done: 'Done', rejected: 'Rejected', review: 'Review', blocked: 'Blocked' };

/** A vault's folders and a view that says what the test sets: the daemon's events are the real map. */
function setting() {
  const root = tempDir('wiggum-metrics-');
  const layout = vaultLayout(root, { folders: FOLDERS, dashboard: null });
  for (const dir of [layout.approved, layout.done, layout.rejected, layout.review, layout.blocked, layout.state])
    mkdirSync(dir, { recursive: true });
  const clock = new ManualClock();
  const events = new TypedEvents<DaemonEvents>();
  const daemon = {
    version: 1 as const,
    pid: process.pid,
    vault: root,
    startedAtMs: clock.now() - 90_000,
    updatedAtMs: clock.now(),
    lifecycle: 'running' as const,
    held: false,
    concurrency: 2,
  };
  const state: { view: VaultView } = { view: viewOfEntries([], { daemon, nowMs: clock.now() }) };
  return { root, layout, clock, events, daemon, state, view: () => Promise.resolve(state.view) };
}

function record(
  taskId: string,
  more: Partial<IterationRecord>,
): { type: 'iteration-end'; taskId: string; record: IterationRecord } {
  return {
    type: 'iteration-end',
    taskId,
    record: {
      iteration: 1,
      attempt: 0,
      startedAt: '2026-01-01T00:00:00Z',
      endedAt: '2026-01-01T00:00:02Z',
      durationMs: 2_000,
      harness: 'fake',
      exitCode: 0,
      signal: null,
      outcome: 'continue',
      completionFound: false,
      storiesPassing: 0,
      storiesTotal: 1,
      action: 'continue',
      nextState: 'next iteration',
      ...more,
    },
  };
}

function started(taskId: string, harness: string) {
  return {
    type: 'started' as const,
    taskId,
    file: `/v/Approved/${taskId}.md`,
    iteration: 0,
    maxIterations: 5,
    resumed: false,
    durable: true,
    harness,
    session: `s-${taskId}`,
  };
}

describe('the metrics follow the daemon’s events, with a clock the test moves', () => {
  test('pickup and overhead measured from the events; waits named by the harness the task started on', async () => {
    const { layout, clock, events, view } = setting();
    const metrics = await createDaemonMetrics({ events, layout, clock, view });

    events.emit('queued', { taskId: 'a', name: 'a.md', file: '/v/Approved/a.md' });
    await clock.advance(1_500);
    events.emit('loop', started('a', 'fake'));
    events.emit('loop', {
      type: 'iteration',
      taskId: 'a',
      iteration: 1,
      attempt: 0,
      maxIterations: 5,
      step: null,
      startedAtMs: clock.now(),
    });
    await clock.advance(2_300);
    // The agent ran 2 s of the 2.3 s: 0.3 s were the loop's.
    events.emit('loop', record('a', { outcome: 'transient', exitCode: 75, action: 'retry' }));
    // A wait relayed from a worker names no harness: the one the task started on is used.
    events.emit('loop', { type: 'waiting', taskId: 'a', untilMs: clock.now() + 60_000, why: 'usage-limit' });
    events.emit('loop', {
      type: 'waiting',
      taskId: 'a',
      untilMs: clock.now() + 60_000,
      why: 'outage',
      harness: 'other',
    });
    events.emit('loop', { type: 'waiting', taskId: 'a', untilMs: clock.now() + 10, why: 'retry', harness: 'fake' });
    events.emit('loop', { type: 'waiting', taskId: 'a', untilMs: Number.POSITIVE_INFINITY, why: 'hold' });
    // A record whose iteration was not seen starting here: counted, not timed.
    events.emit('loop', record('a', { iteration: 2, attempt: 1, outcome: 'complete', action: 'done' }));

    const { contentType, body } = await metrics.render();
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = parsePromText(body);
    expect(valueOf(text, 'wiggum_task_pickup_seconds_count')).toBe(1);
    expect(valueOf(text, 'wiggum_task_pickup_seconds_sum')).toBe(1.5);
    expect(valueOf(text, 'wiggum_task_pickup_seconds_bucket', { le: '1' })).toBe(0);
    expect(valueOf(text, 'wiggum_task_pickup_seconds_bucket', { le: '2.5' })).toBe(1);
    expect(valueOf(text, 'wiggum_loop_overhead_seconds_count')).toBe(1);
    expect(valueOf(text, 'wiggum_loop_overhead_seconds_sum')).toBeCloseTo(0.3, 9);
    expect(valueOf(text, 'wiggum_harness_runs_total', { harness: 'fake', outcome: 'transient' })).toBe(1);
    expect(valueOf(text, 'wiggum_harness_runs_total', { harness: 'fake', outcome: 'complete' })).toBe(1);
    expect(valueOf(text, 'wiggum_iterations_total', { harness: 'fake', outcome: 'complete' })).toBe(1);
    expect(sumOf(text, 'wiggum_iterations_total')).toBe(1);
    expect(valueOf(text, 'wiggum_retries_total', { harness: 'fake' })).toBe(1);
    expect(valueOf(text, 'wiggum_usage_limit_waits_total', { harness: 'fake' })).toBe(1);
    expect(valueOf(text, 'wiggum_outage_waits_total', { harness: 'other' })).toBe(1);
    expect(valueOf(text, 'wiggum_outage_waits_total', { harness: 'fake' })).toBe(0);
    expect(valueOf(text, 'wiggum_daemon_uptime_seconds')).toBe(90 + 3.8);
    expect(valueOf(text, 'wiggum_daemon_start_time_seconds')).toBe((clock.now() - 93_800) / 1000);

    // Released: the events no longer count.
    metrics.release();
    events.emit('loop', record('a', { iteration: 3 }));
    expect(sumOf(parsePromText((await metrics.render()).body), 'wiggum_harness_runs_total')).toBe(2);
  });

  test('a task settled before it started is forgotten: its later start is not timed from the old queueing', async () => {
    const { layout, clock, events, view } = setting();
    const metrics = await createDaemonMetrics({ events, layout, clock, view });
    events.emit('queued', { taskId: 'b', name: 'b.md', file: '/v/Approved/b.md' });
    events.emit('settled', { taskId: 'b', name: 'b.md', result: null, error: new Error('unreadable') });
    await clock.advance(60_000);
    events.emit('loop', started('b', 'fake'));
    const text = parsePromText((await metrics.render()).body);
    expect(valueOf(text, 'wiggum_task_pickup_seconds_count')).toBe(0);
    // Seen starting: its counters are there at 0 before its first run ends.
    expect(valueOf(text, 'wiggum_retries_total', { harness: 'fake' })).toBe(0);
    expect(valueOf(text, 'wiggum_completion_refusals_total', { harness: 'fake' })).toBe(0);
    metrics.release();
  });

  test('the gauges: tasks by state from the view (the words status --json gives), the queue, the starts kept across daemons', async () => {
    const { layout, clock, events, daemon, state, view } = setting();
    const ended = (n: number, prefix: string): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}.md`);
    state.view = viewOfEntries(
      [
        { id: 'r', name: 'r.md', file: 'r', phase: 'running', sinceMs: clock.now() - 5_000 },
        { id: 'q1', name: 'q1.md', file: 'q1', phase: 'queued', sinceMs: clock.now() - 42_000 },
        { id: 'q2', name: 'q2.md', file: 'q2', phase: 'queued', sinceMs: clock.now() - 1_000 },
      ],
      {
        daemon,
        nowMs: clock.now(),
        files: {
          approved: ['x.md'],
          review: ['one.md', 'two.md'],
          blocked: ['asks.md'],
          done: ended(10, 'd'),
          rejected: ended(2, 'r'),
        },
      },
    );
    const first = await createDaemonMetrics({ events, layout, clock, view });
    const text = parsePromText((await first.render()).body);
    const states: Record<string, number> = {};
    for (const sample of text.get('wiggum_tasks')?.samples ?? []) states[sample.labels.state ?? '?'] = sample.value;
    expect(states).toEqual({
      ...Object.fromEntries(TASK_STATES.map((name) => [name, 0])),
      running: 1,
      queued: 3,
      blocked: 1,
      'in-review': 2,
      done: 10,
      rejected: 2,
    });
    // Every task the views call queued, x.md (not in the daemon's list yet) too.
    expect(valueOf(text, 'wiggum_queue_depth')).toBe(3);
    expect(valueOf(text, 'wiggum_queue_oldest_age_seconds')).toBe(42);
    expect(valueOf(text, 'wiggum_daemon_starts_total')).toBe(1);
    first.release();
    // The next daemon on this vault: one start more.
    const second = await createDaemonMetrics({ events, layout, clock, view });
    expect(valueOf(parsePromText((await second.render()).body), 'wiggum_daemon_starts_total')).toBe(2);
    second.release();
  });

  test('scrapes at once take turns: each renders the picture of its own view, in order', async () => {
    const { layout, clock, events, state } = setting();
    let reading = 0;
    let mostAtOnce = 0;
    let calls = 0;
    // A view that takes a turn of the event loop, and says a different Done/ count each time.
    const view = async (): Promise<VaultView> => {
      reading += 1;
      mostAtOnce = Math.max(mostAtOnce, reading);
      calls += 1;
      const done = calls;
      await new Promise((resolve) => setImmediate(resolve));
      reading -= 1;
      return { ...state.view, states: { ...state.view.states, done } };
    };
    const metrics = await createDaemonMetrics({ events, layout, clock, view });
    const bodies = await Promise.all([metrics.render(), metrics.render(), metrics.render()]);
    expect(mostAtOnce).toBe(1);
    expect(bodies.map(({ body }) => valueOf(parsePromText(body), 'wiggum_tasks', { state: 'done' }))).toEqual([
      1, 2, 3,
    ]);
    metrics.release();
  });
});
