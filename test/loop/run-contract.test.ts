import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, onTestFailed, test } from 'vitest';
import { Cluster } from '../helpers/scale-out.js';
import { NO_TOTAL_BUDGET, waitFor } from '../helpers/wait.js';

// One run contract (src/loop/run-host.ts), one list of scenarios, run against every host a run can
// live on, as chokidar runs one suite against two backends: the vault (`wiggum start`: the daemon
// runs the loop itself, on `vaultRunHost`) and the queue (`wiggum start --queue`: two workers run
// the loop on their private copies, and the vault host applies what they report). Real processes
// throughout: the built CLI, the fake agent (test/fixtures/queue/agent.sh), git remotes, and for
// the queue a real redis-server. Every wait is on a file or a log event, bounded by a guard.

const HOSTS = [
  { host: 'the vault (wiggum start)', queue: false },
  { host: 'the queue (wiggum start --queue, two workers)', queue: true },
] as const;

describe.each(HOSTS)('the run contract on $host', ({ queue }) => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await Cluster.start({ workers: 2, maxStalled: 1, queue });
  });

  afterAll(async () => {
    await cluster.close();
  });

  function explainOnFailure(...tasks: string[]): void {
    onTestFailed(() => {
      for (const task of tasks)
        console.error(`=== ${task}: ${JSON.stringify(cluster.summary(task))}\n${cluster.logTail(task)}`);
      console.error(`cluster folder: ${cluster.root}`);
    });
  }

  const approved = (task: string): string => join(cluster.vault, 'Approved', `${task}.md`);
  const statusOf = (file: string): string | null =>
    existsSync(file) ? (/^\s+status: (\w+)\s*$/m.exec(readFileSync(file, 'utf8'))?.[1] ?? null) : null;

  test(
    'a stop flag stops the run: the task stays in Approved/, stopped, its iteration not counted twice',
    {
      timeout: NO_TOTAL_BUDGET,
    },
    async () => {
      explainOnFailure('flagged');
      cluster.drop('flagged', { agent: { done_at: 5, sleep_s: 30 } });
      await cluster.waitForRun('flagged', 1);
      writeFileSync(join(cluster.vault, 'Approved', 'flagged.stop'), '');
      await waitFor(() => statusOf(approved('flagged')) === 'stopped', 'flagged to say status: stopped');
      await cluster.waitForNoAgents();
      expect(cluster.foldersOf('flagged')).toEqual(['Approved']);
      expect(cluster.starts('flagged', 2)).toEqual([]);
    },
  );

  test(
    'STOP holds every run before its next iteration; removed, the task goes on to Done/',
    {
      timeout: NO_TOTAL_BUDGET,
    },
    async () => {
      explainOnFailure('held');
      const stop = join(cluster.vault, 'STOP');
      cluster.drop('held', { agent: { done_at: 2, sleep_s: 3 } });
      await cluster.waitForRun('held', 1);
      writeFileSync(stop, '');
      await waitFor(
        () => cluster.logEventsOfAll('loop.holding').some((line) => line['taskId'] === 'held'),
        'the run of held to hold',
      );
      expect(cluster.starts('held', 2)).toEqual([]);
      rmSync(stop);
      await cluster.waitForDone(['held']);
      expect(cluster.historyIterations('held')).toEqual([1, 2]);
    },
  );

  test(
    'a drain interrupts the run; the next start resumes it and counts each iteration once',
    {
      timeout: NO_TOTAL_BUDGET,
    },
    async () => {
      explainOnFailure('drained');
      cluster.drop('drained', { agent: { done_at: 2, sleep_s: 4 } });
      await cluster.waitForRun('drained', 1);
      const host = cluster.host;
      if (host === null) throw new Error('the cluster has no host');
      host.child.kill('SIGTERM');
      await host.exited();
      expect(cluster.foldersOf('drained')).toEqual(['Approved']);
      expect(statusOf(approved('drained'))).toBe('interrupted');
      cluster.startHost();
      await cluster.waitForDone(['drained']);
      expect(cluster.historyIterations('drained')).toEqual([1, 2]);
    },
  );

  test(
    'a usage limit pauses every harness on the account: the other task waits with it',
    {
      timeout: NO_TOTAL_BUDGET,
    },
    async () => {
      explainOnFailure('limited', 'mate');
      // ha and hc are two harnesses on one account (acct-a): a limit one meets is the other's too.
      cluster.drop('limited', { harness: 'ha', agent: { done_at: 2, sleep_s: 1, limit_at: 1, limit_s: 6 } });
      cluster.drop('mate', { harness: 'hc', agent: { done_at: 4, sleep_s: 1 } });
      await cluster.waitForDone(['limited', 'mate']);
      expect(cluster.events().some((event) => event.kind === 'limit' && event.task === 'limited')).toBe(true);
      const paused = cluster.logEventsOfAll('harness.paused').filter((line) => line['taskId'] === 'mate');
      expect(paused.length).toBeGreaterThan(0);
      expect(paused.every((line) => line['why'] === 'usage-limit')).toBe(true);
    },
  );

  test('a question sends the task to Blocked/ with the question in it', { timeout: NO_TOTAL_BUDGET }, async () => {
    explainOnFailure('asker');
    cluster.drop('asker', { agent: { ask_at: 1, done_at: 3 } });
    const blocked = join(cluster.vault, 'Blocked', 'asker.md');
    await waitFor(() => existsSync(blocked) && !existsSync(approved('asker')), 'asker in Blocked/ only');
    expect(readFileSync(blocked, 'utf8')).toContain('Which colour should the asker button be?');
    expect(statusOf(blocked)).toBe('blocked');
  });

  test("a task's own prd: file is its memory's prd.json", { timeout: NO_TOTAL_BUDGET }, async () => {
    explainOnFailure('planned');
    // Inside the vault: a prd: outside the vault and the task's workdir is refused.
    const prd = join(cluster.vault, `planned-prd-${queue ? 'queue' : 'vault'}.json`);
    const story = (id: string) => ({ id, title: `story ${id}`, acceptanceCriteria: [], priority: 1, passes: true });
    writeFileSync(
      prd,
      JSON.stringify({ projectName: 'planned', description: 'a plan', userStories: [story('P-1'), story('P-2')] }),
    );
    cluster.drop('planned', { agent: { done_at: 1 }, frontmatter: [`prd: ${prd}`] });
    await cluster.waitForDone(['planned']);
    const history = cluster.history('planned');
    expect(history.length).toBeGreaterThan(0);
    expect(history.map((line) => line['storiesTotal'])).toEqual(history.map(() => 2));
  });
  test(
    'a crash between the history line and the checkpoint: the resumed run counts that iteration once',
    {
      timeout: NO_TOTAL_BUDGET,
    },
    async () => {
      explainOnFailure('torn');
      // What a kill -9 after iteration 2's history line and before its checkpoint leaves: the
      // checkpoint says 1 iteration, the session's history has 2.
      const session = `torn-${queue ? 'queue' : 'vault'}`;
      const started = new Date(Date.now() - 60_000).toISOString();
      const dir = join(cluster.vault, '.wiggum', 'sessions', 'torn');
      mkdirSync(dir, { recursive: true });
      const meta = { sessionId: session, taskId: 'torn', taskFile: 'torn.md', branchName: null, createdAt: started };
      writeFileSync(join(dir, 'session.json'), JSON.stringify(meta));
      writeFileSync(join(dir, 'prd.json'), JSON.stringify({ projectName: 'torn', userStories: [] }));
      const line = (iteration: number): string =>
        JSON.stringify({
          iteration,
          attempt: 0,
          startedAt: started,
          endedAt: started,
          durationMs: 1000,
          harness: 'q',
          exitCode: 0,
          signal: null,
          outcome: 'continue',
          completionFound: false,
          storiesPassing: 0,
          storiesTotal: 0,
          action: 'continue',
          nextState: `iteration ${iteration + 1}`,
        });
      writeFileSync(join(dir, 'history.jsonl'), `${line(1)}\n${line(2)}\n`);
      const checkpoint = ['status: running', `session: ${session}`, 'iteration: 1', 'max_iterations: 12'];
      cluster.drop('torn', {
        agent: { done_at: 3 },
        frontmatter: ['persistence_loop:', ...checkpoint.map((key) => `  ${key}`), `  started: ${started}`],
      });
      await cluster.waitForDone(['torn']);
      expect(cluster.historyIterations('torn')).toEqual([1, 2, 3]);
      expect(cluster.starts('torn').map((event) => event.iteration)).toEqual([3]);
    },
  );
});
