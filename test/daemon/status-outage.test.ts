import { describe, expect, test } from 'vitest';
import { StatusTracker } from '../../src/daemon/status-tracker.js';
import type { IterationRecord } from '../../src/memory/history.js';

const record = (outcome: string): IterationRecord => ({
  iteration: 1,
  attempt: 0,
  startedAt: '2026-11-23T10:00:00Z',
  endedAt: '2026-11-23T10:00:01Z',
  durationMs: 1000,
  harness: 'codex',
  exitCode: 1,
  signal: null,
  outcome,
  completionFound: false,
  storiesPassing: 0,
  storiesTotal: 1,
  action: outcome === 'complete' ? 'done' : 'wait',
  nextState: outcome === 'complete' ? 'Done' : 'harness outage',
});

describe('the status of a task waiting on an outage', () => {
  test('says which harness it waits on, keeps saying it while the task probes, and forgets it at the first answer', () => {
    let now = 1000;
    const tracker = new StatusTracker(
      { pid: 1, vault: '/v', startedAtMs: 0, concurrency: 3 },
      () => now,
      () => undefined,
    );
    tracker.queued('a', 'a.md', '/v/Approved/a.md');
    tracker.event({ type: 'waiting', taskId: 'a', untilMs: 5000, why: 'outage', harness: 'codex' });
    expect(tracker.snapshot().tasks[0]).toMatchObject({
      phase: 'waiting',
      waitingFor: 'outage',
      outage: { harness: 'codex', sinceMs: 1000 },
    });

    now = 5000;
    tracker.event({
      type: 'iteration',
      taskId: 'a',
      iteration: 1,
      attempt: 5,
      maxIterations: 10,
      step: null,
      startedAtMs: now,
    });
    expect(tracker.snapshot().tasks[0]).toMatchObject({
      phase: 'running',
      outage: { harness: 'codex', sinceMs: 1000 },
    });
    tracker.event({ type: 'iteration-end', taskId: 'a', record: record('transient') });
    tracker.event({ type: 'waiting', taskId: 'a', untilMs: 9000, why: 'outage', harness: 'codex' });
    expect(tracker.snapshot().tasks[0]?.outage).toEqual({ harness: 'codex', sinceMs: 1000 });

    tracker.event({
      type: 'iteration',
      taskId: 'a',
      iteration: 1,
      attempt: 6,
      maxIterations: 10,
      step: null,
      startedAtMs: 9000,
    });
    tracker.event({ type: 'iteration-end', taskId: 'a', record: record('complete') });
    expect(tracker.snapshot().tasks[0]?.outage).toBeUndefined();
  });
});
