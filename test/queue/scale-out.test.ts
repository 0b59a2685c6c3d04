import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, onTestFailed, test } from 'vitest';
import { isRunning } from '../helpers/process-state.js';
import { Cluster } from '../helpers/scale-out.js';
import type { AgentEvent, AgentRun, ClusterProcess } from '../helpers/scale-out.js';
import { NO_TOTAL_BUDGET, waitFor } from '../helpers/wait.js';

// The ten cases of scale-out (docs/scale-out.md) against real processes: a redis-server, the vault
// host (`wiggum start --queue`), four `wiggum worker` processes and git remotes, one cluster for the
// whole file. Short queue locks (2 s, stalled check every 1 s) keep a takeover within seconds; every
// wait is on a file or an event, bounded by a guard that only a stuck cluster reaches.

/** Long enough for a lapsed lock to be noticed and the run taken up again elsewhere (2 s + 1 s + slack). */
const STALL_CYCLE_MS = 5_000;

let cluster: Cluster;

beforeAll(async () => {
  // max_stalled 1: one stall resumes (case 1), the second sends the task to Rejected/ (case 2).
  cluster = await Cluster.start({ workers: 4, maxStalled: 1 });
});

afterAll(async () => {
  await cluster.close();
});

/** On failure: the lines of every process's log that name the task, and where the cluster lives. */
function explainOnFailure(...tasks: string[]): void {
  onTestFailed(() => {
    for (const task of tasks)
      console.error(`=== ${task}: ${JSON.stringify(cluster.summary(task))}\n${cluster.logTail(task)}`);
    console.error(`cluster folder: ${cluster.root}`);
  });
}

/** Every case ends so: in Done/ once, history 1..N once each, checkpoint N, the user's bytes kept. */
function expectWhole(task: string, iterations: number): void {
  expect(cluster.summary(task), task).toEqual({
    folders: ['Done'],
    history: Array.from({ length: iterations }, (_, i) => i + 1),
    checkpoint: iterations,
    userBytes: true,
  });
}

/** Runs `use` with a plain Redis client of the cluster's server, closed afterwards. */
async function withRedis<T>(use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(cluster.url, { maxRetriesPerRequest: null });
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

/** The worker a run ran under; fails the test when the run was not under a worker of the cluster. */
function workerOf(run: AgentRun): ClusterProcess {
  const worker = cluster.workerOf(run);
  if (worker === null) throw new Error(`run ${run.task}.${run.iteration}.${run.pid} is under no worker`);
  return worker;
}

/** Waits for an agent run of TASK to start after `afterMs` under a worker other than `not`. */
async function waitForTakeover(task: string, not: ClusterProcess, afterMs: number): Promise<AgentRun> {
  let found: AgentRun | undefined;
  await waitFor(
    () => {
      const late = new Set(
        cluster
          .starts(task)
          .filter((e) => e.atMs > afterMs)
          .map((e) => e.pid),
      );
      found = cluster.runs(task).find((run) => late.has(run.pid) && cluster.workerOf(run) !== not);
      return found !== undefined;
    },
    `${task} to start again on another worker`,
    60_000,
  );
  return found as AgentRun;
}

describe('scale-out: a vault host, four workers, Redis and git remotes', () => {
  test(
    '6 and 8: two tasks on one workdir never overlap; agents get no vault path',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      explainOnFailure('s1', 's2', 'p1');
      cluster.drop('s1', { workdir: 'shared', agent: { done_at: 3, sleep_s: 1 } });
      cluster.drop('s2', { workdir: 'shared', agent: { done_at: 3, sleep_s: 1 } });
      cluster.drop('p1', { agent: { done_at: 3, sleep_s: 1 } });
      await cluster.waitForDone(['s1', 's2', 'p1']);
      for (const task of ['s1', 's2', 'p1']) expectWhole(task, 3);

      // Case 6: no run of s1 overlaps a run of s2 (each run from its start to its end).
      const spans = (task: string): [number, number][] => {
        const events = cluster.events().filter((e) => e.task === task);
        return events
          .filter((e) => e.kind === 'start')
          .map((s) => [s.atMs, events.find((e) => e.kind === 'end' && e.pid === s.pid)?.atMs ?? Infinity]);
      };
      const [a, b] = [spans('s1'), spans('s2')];
      expect(a.length).toBeGreaterThanOrEqual(3);
      expect(b.length).toBeGreaterThanOrEqual(3);
      const overlaps = a.flatMap(([s1, e1]) => b.filter(([s2, e2]) => s1 < e2 && s2 < e1));
      expect(overlaps).toEqual([]);

      // Case 8: every run was under a worker (none under the host), in a folder of the worker's own,
      // with no vault path in its environment; worker folders are outside the vault.
      const runs = cluster.runs();
      expect(runs.length).toBeGreaterThanOrEqual(9);
      const vault = cluster.vault;
      const inVault = (path: string): boolean => path === vault || path.startsWith(`${vault}/`);
      for (const run of runs) {
        const worker = workerOf(run);
        expect(run.ancestors).not.toContain(cluster.host?.pid);
        expect(run.cwd.startsWith(join(cluster.root, 'workers', worker.name, '.wiggum', 'worker'))).toBe(true);
        expect(Object.entries(run.env).filter(([, value]) => inVault(value) || value.includes(`${vault}/`))).toEqual(
          [],
        );
      }
      expect(new Set(runs.map((run) => workerOf(run).name)).size).toBeGreaterThanOrEqual(2);
      expect([...cluster.vaultTouches]).toEqual([]);
      await cluster.waitForNoAgents();
    },
  );

  test(
    'a confined agent on a worker: every run in bubblewrap, the task whole in Done/',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      explainOnFailure('c1');
      cluster.drop('c1', { harness: 'qs', agent: { done_at: 2, sleep_s: 0 } });
      await cluster.waitForDone(['c1']);
      expectWhole('c1', 2);
      const runs = cluster.history('c1').filter((line) => line['outcome'] !== undefined);
      expect(runs.length).toBeGreaterThanOrEqual(2);
      expect(runs.map((line) => line['sandbox'])).toEqual(runs.map(() => 'bwrap'));
    },
  );

  test(
    '1: kill -9 of the worker mid-iteration: another worker resumes from the checkpoint',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      explainOnFailure('k9');
      // The cut iteration's agent would work two minutes: it must not be left to do so.
      cluster.drop('k9', { agent: { done_at: 4, sleep_s: 0.5, slow_at: 2, slow_s: 120 } });
      const cut = await cluster.waitForRun('k9', 2);
      const victim = workerOf(cut);
      const killedAt = Date.now();
      await cluster.kill9(victim);
      // A kill -9 leaves the agent's process group behind (nothing but a supervisor's cgroup kills
      // it); the worker restarted in its folder, as systemd's Restart= does, stops what it left.
      cluster.startWorker(victim);
      await waitFor(() => !isRunning(cut.pid), `the killed worker's agent (pid ${cut.pid}) to be stopped`);
      const resumed = await waitForTakeover('k9', victim, killedAt);
      await cluster.waitForDone(['k9']);
      expectWhole('k9', 4);
      // It resumed at iteration 2 (the one cut), not from the start: iteration 1 ran once.
      expect(resumed.iteration).toBe(2);
      expect(cluster.starts('k9', 1)).toHaveLength(1);
      // Each iteration's commit is on the remote branch once.
      expect(cluster.remoteSubjects('k9').filter((s) => s.startsWith('agent: '))).toHaveLength(4);
      await cluster.waitForNoAgents();
    },
  );

  test(
    '2: a second kill of one task is its second stall: Rejected/ with E_QUEUE_STALLED, nothing dropped; moved back, it finishes',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      explainOnFailure('kk');
      cluster.drop('kk', { agent: { done_at: 4, sleep_s: 0.5, slow_at: 2, slow_s: 120 } });
      const first = await cluster.waitForRun('kk', 2);
      const victim1 = workerOf(first);
      const killed1 = Date.now();
      await cluster.kill9(victim1);
      cluster.startWorker(victim1);
      // Its run resumes elsewhere (or on the restarted worker); kill the worker running it again.
      const second = await waitForTakeover('kk', victim1, killed1);
      const victim2 = workerOf(second);
      await cluster.kill9(victim2);
      cluster.startWorker(victim2);
      await cluster.waitForOnlyIn('Rejected', ['kk']);
      const report = cluster.taskFile('kk', 'Rejected');
      expect(report).toContain('E_QUEUE_STALLED');
      // The report says which setting allows more stalls.
      expect(report).toContain('queue.max_stalled');
      expect(cluster.foldersOf('kk')).toEqual(['Rejected']);
      // Nothing silently dropped: the history holds every iteration that finished, once each.
      const counted = cluster.historyIterations('kk');
      expect(counted).toEqual(Array.from({ length: counted.length }, (_, i) => i + 1));
      await cluster.waitForNoAgents();

      // Moved back to Approved/ by the user, it resumes and finishes.
      renameSync(join(cluster.vault, 'Rejected', 'kk.md'), join(cluster.vault, 'Approved', 'kk.md'));
      await cluster.waitForDone(['kk']);
      expectWhole('kk', 4);
      await cluster.waitForNoAgents();
    },
  );

  test(
    '3: SIGTERM hands the run back at once: the worker exits, another resumes, no attempt used',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      explainOnFailure('term');
      // Iterations of 1 s after the cut: the job is still in Redis to be read after the takeover.
      cluster.drop('term', { agent: { done_at: 5, sleep_s: 1, slow_at: 2, slow_s: 120 } });
      const cut = await cluster.waitForRun('term', 2);
      const victim = workerOf(cut);
      const termAt = Date.now();
      victim.child.kill('SIGTERM');
      // Promptly: long before the two minutes its agent had left (a guard, not a measurement).
      await Promise.race([
        victim.exited(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('the worker did not exit on SIGTERM')), 30_000)),
      ]);
      expect(victim.child.exitCode).toBe(0);
      expect(isRunning(cut.pid)).toBe(false);
      expect(cluster.logEvents(victim, 'worker.handed-back')).toHaveLength(1);
      const resumed = await waitForTakeover('term', victim, termAt);
      expect(resumed.iteration).toBe(2);
      // A hand-back is neither a failed attempt nor a stall: BullMQ's counters in the job say so.
      const job = await withRedis((redis) => redis.hgetall('bull:wiggum-runs:task-term'));
      expect(job['ats']).toBeDefined();
      expect({ attemptsMade: job['atm'] ?? '0', stalls: job['stc'] ?? '0' }).toEqual({
        attemptsMade: '0',
        stalls: '0',
      });
      cluster.startWorker(victim);
      await cluster.waitForDone(['term']);
      expectWhole('term', 5);
      await cluster.waitForNoAgents();
    },
  );

  test(
    '4: a stop flag stops the run on its worker; nothing runs while it is there; removed, the task finishes',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      explainOnFailure('stopme');
      cluster.drop('stopme', { agent: { done_at: 3, sleep_s: 0.5, slow_at: 2, slow_s: 60 } });
      const cut = await cluster.waitForRun('stopme', 2);
      const flag = join(cluster.vault, 'Approved', 'stopme.stop');
      writeFileSync(flag, '');
      const file = join(cluster.vault, 'Approved', 'stopme.md');
      await waitFor(
        () => existsSync(file) && /^\s+status: stopped\s*$/m.test(cluster.taskFile('stopme', 'Approved')),
        'status: stopped in stopme',
      );
      await waitFor(() => !isRunning(cut.pid), `its agent (pid ${cut.pid}) to stop`);
      const before = cluster.starts('stopme').length;
      // A window as long as a lapsed lock's takeover: a run freed by mistake would start within it.
      await new Promise((resolve) => setTimeout(resolve, STALL_CYCLE_MS));
      expect(cluster.starts('stopme')).toHaveLength(before);
      rmSync(flag);
      await cluster.waitForDone(['stopme']);
      expectWhole('stopme', 3);
      await cluster.waitForNoAgents();
    },
  );

  test(
    "5: a usage limit of account A holds A's runs on every worker until the reset; account B goes on",
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      explainOnFailure('ua1', 'ua2', 'ub');
      cluster.drop('ub', { harness: 'hb', agent: { done_at: 10, sleep_s: 0.5 } });
      cluster.drop('ua2', { harness: 'ha', agent: { done_at: 8, sleep_s: 0.5 } });
      await cluster.waitForRun('ub', 1);
      await cluster.waitForRun('ua2', 1);
      // ua1's first run reports a usage limit of account A that resets 8 s later.
      cluster.drop('ua1', { harness: 'ha', agent: { done_at: 3, sleep_s: 0.5, limit_at: 1, limit_s: 8 } });
      await cluster.waitForDone(['ua1', 'ua2', 'ub']);
      const limit = cluster.events().find((e) => e.kind === 'limit');
      expect(limit?.task).toBe('ua1');
      const { atMs: limitMs, resetMs } = limit as AgentEvent & { resetMs: number };
      // ua2 runs on another worker: that worker took the account's pause from Redis and held it.
      const held = cluster
        .logEventsOfAll('harness.paused')
        .filter((line) => line['taskId'] === 'ua2')
        .map((line) => Date.parse(String(line['time'])));
      expect(held.length).toBeGreaterThan(0);
      const heldMs = Math.min(...held);
      expect(heldMs).toBeGreaterThan(limitMs);
      expect(heldMs).toBeLessThan(resetMs);
      const startsBetween = (task: string, fromMs: number): AgentEvent[] =>
        cluster.starts(task).filter((e) => e.atMs > fromMs && e.atMs < resetMs);
      // Neither task of account A started an agent until the reset, from the limit (ua1) or from
      // the moment its worker held it (ua2); both started again after it.
      expect(startsBetween('ua1', limitMs)).toEqual([]);
      expect(startsBetween('ua2', heldMs)).toEqual([]);
      expect(cluster.starts('ua1').filter((e) => e.atMs >= resetMs).length).toBeGreaterThan(0);
      expect(cluster.starts('ua2').filter((e) => e.atMs >= resetMs).length).toBeGreaterThan(0);
      // Account B went on meanwhile.
      expect(startsBetween('ub', heldMs).length).toBeGreaterThan(0);
      expectWhole('ua1', 3);
      expectWhole('ua2', 8);
      expectWhole('ub', 10);
      await cluster.waitForNoAgents();
    },
  );

  test(
    '7: the vault host killed (-9) and started again mid-run: the workers go on, the host catches up',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      explainOnFailure('h1', 'h2');
      cluster.drop('h1', { agent: { done_at: 6, sleep_s: 1 } });
      cluster.drop('h2', { agent: { done_at: 6, sleep_s: 1 } });
      await cluster.waitForRun('h1', 2);
      await cluster.waitForRun('h2', 2);
      const killedAt = Date.now();
      await cluster.kill9(cluster.host as ClusterProcess);
      // While the host is down the workers go on: an agent run starts after the kill.
      await waitFor(
        () => cluster.events().some((e) => e.kind === 'start' && ['h1', 'h2'].includes(e.task) && e.atMs > killedAt),
        'a run while the host is down',
      );
      cluster.startHost();
      await cluster.waitForDone(['h1', 'h2']);
      expectWhole('h1', 6);
      expectWhole('h2', 6);
      await cluster.waitForNoAgents();
    },
  );

  test(
    '9: a worker stopped (SIGSTOP) past its lock, then continued: its late progress and push are refused',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      explainOnFailure('z');
      // Two minutes of work in the cut iteration: only the zombie itself can stop that agent in time.
      cluster.drop('z', { agent: { done_at: 4, sleep_s: 0.5, slow_at: 2, slow_s: 120 } });
      const cut = await cluster.waitForRun('z', 2);
      const zombie = workerOf(cut);
      const stoppedAt = Date.now();
      zombie.child.kill('SIGSTOP');
      let owner: ClusterProcess;
      try {
        // Its lock lapses; another worker takes the run over and redoes iteration 2.
        owner = workerOf(await waitForTakeover('z', zombie, stoppedAt));
        await waitFor(() => cluster.starts('z', 3).length > 0, 'the new owner to reach iteration 3');
      } finally {
        zombie.child.kill('SIGCONT');
      }
      // Awake, the zombie finds its lock gone, stops its agent and sends nothing more.
      await waitFor(() => cluster.logEvents(zombie, 'worker.fenced').length > 0, 'the zombie to be fenced');
      await waitFor(() => !isRunning(cut.pid), `the zombie's agent (pid ${cut.pid}) to stop`);
      await cluster.waitForDone(['z']);
      expectWhole('z', 4);
      // On the remote branch each iteration's commit is there once, and from the takeover on (2..4) all
      // are the owner's: the zombie's push was refused.
      const subjects = cluster.remoteSubjects('z').filter((s) => s.startsWith('agent: '));
      expect(subjects.map((s) => /iteration (\d+)/.exec(s)?.[1])).toEqual(['1', '2', '3', '4']);
      const byPid = new Map(cluster.runs('z').map((run) => [run.pid, run]));
      const late = subjects.slice(1).map((s) => byPid.get(Number(/pid (\d+)/.exec(s)?.[1])));
      expect(late.map((run) => (run === undefined ? 'unknown' : workerOf(run).name))).not.toContain(zombie.name);
      expect(late.every((run) => run !== undefined)).toBe(true);
      expect(owner.name).not.toBe(zombie.name);
      await cluster.waitForNoAgents();
    },
  );

  test(
    'a drain of the vault host (SIGTERM) stops the run on its worker, checkpointed; started again, it finishes',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      explainOnFailure('dr');
      cluster.drop('dr', { agent: { done_at: 3, sleep_s: 0.5, slow_at: 2, slow_s: 120 } });
      const cut = await cluster.waitForRun('dr', 2);
      const host = cluster.host as ClusterProcess;
      host.child.kill('SIGTERM');
      await host.exited();
      expect(host.child.exitCode).toBe(0);
      // The drain reached the worker: its agent, with two minutes of work left, is stopped, and the
      // file in Approved/ says the run was interrupted after iteration 1.
      await waitFor(() => !isRunning(cut.pid), `the agent (pid ${cut.pid}) to stop`);
      const text = cluster.taskFile('dr', 'Approved');
      expect(text).toMatch(/^\s+status: interrupted\s*$/m);
      expect(text).toMatch(/^\s+iteration: 1\s*$/m);
      cluster.startHost();
      await cluster.waitForDone(['dr']);
      expectWhole('dr', 3);
      await cluster.waitForNoAgents();
    },
  );

  test('10: Redis restarted (append-only file) mid-run: runs go on', { timeout: NO_TOTAL_BUDGET }, async () => {
    explainOnFailure('r1', 'r2');
    cluster.drop('r1', { agent: { done_at: 6, sleep_s: 1 } });
    cluster.drop('r2', { agent: { done_at: 6, sleep_s: 1 } });
    await cluster.waitForRun('r1', 2);
    await cluster.waitForRun('r2', 2);
    await cluster.redis.restart();
    await cluster.waitForDone(['r1', 'r2']);
    expectWhole('r1', 6);
    expectWhole('r2', 6);
    expect(cluster.host?.child.exitCode).toBeNull();
    expect(cluster.liveWorkers().length).toBeGreaterThanOrEqual(4);
    await cluster.waitForNoAgents();
  });

  test('over the whole run: no worker had a file in the vault, no agent is left', () => {
    expect(cluster.samples).toBeGreaterThan(100);
    expect([...cluster.vaultTouches]).toEqual([]);
    expect(cluster.agentsLeft()).toEqual([]);
  });
});
