import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { expect, onTestFinished, test } from 'vitest';
import { accountOf } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load.js';
import { taskSettings } from '../../src/loop/task-settings.js';
import { parseQueueUrl } from '../../src/queue/address.js';
import { buildJobData, jobIdFor } from '../../src/queue/job-data.js';
import { QUEUE_NAME } from '../../src/queue/names.js';
import { startQueueWorker, workerRoot } from '../../src/queue/worker-process.js';
import { parseTask } from '../../src/task/parse.js';
import type { Clock } from '../../src/time/clock.js';
import { systemClock } from '../../src/time/clock.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { git, gitRepo, GIT_IDENTITY } from '../helpers/git-repo.js';
import { startRedis } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp-dir.js';
import { NO_TOTAL_BUDGET, waitFor } from '../helpers/wait.js';

/**
 * A clock on which no wait of half a second or more ever ends unless it is aborted: the worker's
 * watcher of the host's keys polls once, then its next poll never comes. Shorter waits (the ack
 * poll, the process group's poll) are real. A run whose end waited for the watcher's next poll
 * would never end here; on the system clock it ended up to that poll interval late, every run.
 */
const farPollClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    ms < 500
      ? systemClock.sleep(ms, signal)
      : new Promise<void>((_resolve, reject) => {
          if (signal === undefined) return;
          const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }),
};

test(
  "a worker's run ends when its loop ends, without waiting for the next poll of the host's keys",
  async () => {
    const redis = await startRedis();
    const root = tempDir('wiggum-worker-end-');
    // The task's remote: a bare repository with one commit on main.
    const source = join(root, 'source');
    mkdirSync(source);
    gitRepo(source);
    const remote = join(root, 'remote.git');
    git(root, 'clone', '--quiet', '--bare', source, remote);
    // The agent claims completion at once; the task has no stories, so the promise completes it.
    const agent = join(root, 'agent.sh');
    writeFileSync(agent, '#!/bin/sh\ncat > /dev/null\nprintf \'<promise>%s</promise>\\n\' "$WIGGUM_PROMISE"\n');
    chmodSync(agent, 0o755);
    const home = join(root, 'worker');
    mkdirSync(join(home, '.wiggum'), { recursive: true });
    writeFileSync(
      join(home, '.wiggum', 'config.yaml'),
      `harness:\n  default: end\nharnesses:\n  end:\n    kind: command\n    command: ${agent}\n    args: []\n`,
    );
    const config = await loadConfig({ vault: home });

    const text = '---\ntitle: end\nmax_iterations: 3\n---\n# end\n\nClaim completion.\n';
    const parsed = parseTask(join(root, 'end.md'), text);
    if (!parsed.ok) throw new Error(`the task does not parse: ${JSON.stringify(parsed.problems)}`);
    const chosen = taskSettings({}, parsed.task.frontmatter, config);
    if (chosen.kind === 'problem') throw new Error(`the task's settings: ${JSON.stringify(chosen.problem)}`);
    const data = buildJobData({
      taskId: 'end',
      fileName: 'end.md',
      taskText: text,
      settings: chosen.settings,
      account: accountOf(chosen.settings.harness),
      checkpoint: null,
      memory: { prd: null, progress: null, context: null },
      code: { remote, branch: 'ralph/end', commit: null, base: 'main' },
      seq: 0,
      generationBase: 0,
    });

    const { logger, lines } = captureLogger();
    const worker = await startQueueWorker({
      address: parseQueueUrl(redis.url),
      config,
      root: workerRoot(home),
      concurrency: 1,
      harnesses: null,
      clock: farPollClock,
      random: Math.random,
      logger,
      env: { ...process.env, ...GIT_IDENTITY },
    });
    const queue = new Queue(QUEUE_NAME, { connection: { host: '127.0.0.1', port: redis.port } });
    onTestFinished(async () => {
      worker.stop('test ended');
      // Bounded: a run stuck at its end (the failure this test looks for) would hold the stop forever.
      await Promise.race([worker.stopped, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      await queue.close();
    });

    await queue.add('run', data, { jobId: jobIdFor('end'), attempts: 1 });
    await waitFor(
      () => lines.some((line) => line.event === 'worker.run-ended' || line.event === 'worker.job-failed'),
      'the run to end (worker.run-ended in its log)',
      60_000,
    );
    const ended = lines.find((line) => line.event === 'worker.run-ended');
    expect(ended?.status).toBe('done');
    const job = await queue.getJob(jobIdFor('end'));
    await waitFor(async () => (await job?.getState()) === 'completed', 'the job to be completed', 30_000);
  },
  NO_TOTAL_BUDGET,
);
