import { describe, expect, test } from 'vitest';
import { claimFor } from '../../src/daemon/admission.js';
import { Scheduler } from '../../src/daemon/scheduler.js';
import type { Job } from '../../src/daemon/task-queue.js';

/** Jobs that run until the test lets them finish, recording what ran and how much at once. */
function harness(concurrency: number, maxPerRepo: number | null = null) {
  const started: string[] = [];
  const aborted: string[] = [];
  const finish = new Map<string, () => void>();
  let running = 0;
  let peak = 0;
  const waiters: (() => void)[] = [];
  const scheduler = new Scheduler(
    concurrency,
    (job, signal) => {
      started.push(job.id);
      running += 1;
      peak = Math.max(peak, running);
      for (const wake of waiters.splice(0)) wake();
      return new Promise<void>((resolve) => {
        const done = (): void => {
          running -= 1;
          resolve();
        };
        finish.set(job.id, done);
        signal.addEventListener('abort', () => {
          aborted.push(`${job.id}:${String(signal.reason)}`);
          done();
        });
      });
    },
    undefined,
    { maxPerRepo },
  );
  /** Resolves once `count` jobs have started. */
  const startedCount = async (count: number): Promise<void> => {
    while (started.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const end = async (id: string): Promise<void> => {
    finish.get(id)?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { scheduler, started, aborted, end, startedCount, peak: () => peak };
}

let clock = 0;
function job(id: string, workdir = `/w/${id}`, priority = 0): Job {
  clock += 1;
  return {
    id,
    name: `${id}.md`,
    file: `/v/Approved/${id}.md`,
    ...claimFor(workdir, null),
    priority,
    enqueuedAtMs: clock,
  };
}

/** A job in the repository `repo` on `branch` (each works in its own worktree). */
function branchJob(id: string, repo: string, branch: string): Job {
  clock += 1;
  const claim = claimFor(repo, { commonDir: `${repo}/.git`, branch });
  return { id, name: `${id}.md`, file: `/v/Approved/${id}.md`, ...claim, priority: 0, enqueuedAtMs: clock };
}

describe('Scheduler', () => {
  test('runs at most `concurrency` jobs, first come first served', async () => {
    const h = harness(2);
    for (const id of ['a', 'b', 'c', 'd']) h.scheduler.add(job(id));
    await h.startedCount(2);
    expect(h.started).toEqual(['a', 'b']);
    await h.end('a');
    await h.startedCount(3);
    expect(h.started).toEqual(['a', 'b', 'c']);
    await h.end('b');
    await h.end('c');
    await h.end('d');
    await h.scheduler.idle();
    expect(h.started).toEqual(['a', 'b', 'c', 'd']);
    expect(h.peak()).toBe(2);
  });

  test('a lower priority number runs sooner (priority 1 before 2)', async () => {
    const h = harness(1);
    h.scheduler.add(job('first'));
    await h.startedCount(1);
    h.scheduler.add(job('low', undefined, 10));
    h.scheduler.add(job('normal'));
    h.scheduler.add(job('urgent', undefined, -10));
    for (const id of ['first', 'urgent', 'normal', 'low']) {
      await h.end(id);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await h.scheduler.idle();
    expect(h.started).toEqual(['first', 'urgent', 'normal', 'low']);
  });

  test('equal priorities run in the order they arrived; waiting() lists that order', async () => {
    const h = harness(1);
    h.scheduler.add(job('first'));
    await h.startedCount(1);
    h.scheduler.add(job('pri-c', undefined, 3));
    h.scheduler.add(job('pri-b', undefined, 2));
    h.scheduler.add(job('pri-a', undefined, 1));
    h.scheduler.add(job('pri-e', undefined, 2));
    expect(h.scheduler.waiting().map((waiting) => waiting.id)).toEqual(['pri-a', 'pri-b', 'pri-e', 'pri-c']);
    for (const id of ['first', 'pri-a', 'pri-b', 'pri-e', 'pri-c']) {
      await h.end(id);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await h.scheduler.idle();
    expect(h.started).toEqual(['first', 'pri-a', 'pri-b', 'pri-e', 'pri-c']);
  });

  test('two jobs with the same workdir never run together, and the waiting one holds no slot', async () => {
    const h = harness(2);
    h.scheduler.add(job('a', '/repo'));
    h.scheduler.add(job('b', '/repo'));
    h.scheduler.add(job('c', '/other'));
    await h.startedCount(2);
    expect(h.started).toEqual(['a', 'c']);
    expect(h.scheduler.waiting().map((j) => j.id)).toEqual(['b']);
    await h.end('a');
    await h.startedCount(3);
    expect(h.started).toEqual(['a', 'c', 'b']);
    await h.end('b');
    await h.end('c');
  });

  test('jobs on one repository run together, but two on one branch take turns', async () => {
    const h = harness(4);
    h.scheduler.add(branchJob('a', '/repo', 'ralph/a'));
    h.scheduler.add(branchJob('b', '/repo', 'shared'));
    h.scheduler.add(branchJob('c', '/repo', 'shared'));
    h.scheduler.add(branchJob('d', '/repo', 'ralph/d'));
    await h.startedCount(3);
    expect(h.started).toEqual(['a', 'b', 'd']);
    expect(h.scheduler.waiting().map((j) => j.id)).toEqual(['c']);
    await h.end('b');
    await h.startedCount(4);
    expect(h.started).toEqual(['a', 'b', 'd', 'c']);
    for (const id of ['a', 'c', 'd']) await h.end(id);
    await h.scheduler.idle();
  });

  test('max_parallel_per_repo caps one repository, not the others', async () => {
    const h = harness(4, 2);
    for (const id of ['a', 'b', 'c']) h.scheduler.add(branchJob(id, '/one', `ralph/${id}`));
    h.scheduler.add(branchJob('x', '/two', 'ralph/x'));
    h.scheduler.add(job('plain', '/plain'));
    await h.startedCount(4);
    expect(h.started).toEqual(['a', 'b', 'x', 'plain']);
    expect(h.scheduler.waiting().map((j) => j.id)).toEqual(['c']);
    await h.end('a');
    await h.startedCount(5);
    expect(h.started.at(-1)).toBe('c');
    for (const id of ['b', 'c', 'x', 'plain']) await h.end(id);
    await h.scheduler.idle();
  });

  test('a task is never queued or run twice at once', async () => {
    const h = harness(2);
    expect(h.scheduler.add(job('a'))).toBe(true);
    expect(h.scheduler.add(job('a'))).toBe(false);
    await h.startedCount(1);
    expect(h.scheduler.add(job('a'))).toBe(false);
    await h.end('a');
    await h.scheduler.idle();
    expect(h.scheduler.add(job('a'))).toBe(true);
    await h.startedCount(2);
    await h.end('a');
  });

  test('stop drops a queued job and aborts a running one with the reason', async () => {
    const h = harness(1);
    h.scheduler.add(job('running'));
    h.scheduler.add(job('queued'));
    await h.startedCount(1);
    expect(h.scheduler.stop('queued', 'stop-flag')).toBe(true);
    expect(h.scheduler.stop('running', 'stop-flag')).toBe(true);
    await h.scheduler.idle();
    expect(h.started).toEqual(['running']);
    expect(h.aborted).toEqual(['running:stop-flag']);
    expect(h.scheduler.stop('nobody', 'stop-flag')).toBe(false);
  });

  test('paused, nothing new starts; resumed, the queue goes on', async () => {
    const h = harness(2);
    h.scheduler.pause();
    h.scheduler.add(job('a'));
    // p-queue starts work within a turn of the event loop: a few turns show nothing started.
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(h.started).toEqual([]);
    h.scheduler.resume();
    await h.startedCount(1);
    await h.end('a');
  });

  test('stopAll (drain) stops everything', async () => {
    const h = harness(1);
    for (const id of ['a', 'b', 'c']) h.scheduler.add(job(id));
    await h.startedCount(1);
    h.scheduler.stopAll('interrupted');
    await h.scheduler.idle();
    expect(h.started).toEqual(['a']);
    expect(h.aborted).toEqual(['a:interrupted']);
  });

  test('a drain pauses, then stops everything: it is idle once the running job ends, queued ones never start', async () => {
    const h = harness(1);
    for (const id of ['a', 'b', 'c']) h.scheduler.add(job(id));
    await h.startedCount(1);
    h.scheduler.pause();
    h.scheduler.stopAll('interrupted');
    await h.scheduler.idle();
    expect(h.started).toEqual(['a']);
    expect(h.aborted).toEqual(['a:interrupted']);
    expect(h.scheduler.waiting()).toEqual([]);
  });
});
