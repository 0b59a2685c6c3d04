import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { inProcessDaemonOptions } from '../helpers/in-process-daemon.js';
import { startDaemon } from '../../src/daemon/daemon.js';
import type { RunningDaemon } from '../../src/daemon/surface.js';
import { inspectVault } from '../../src/daemon/view.js';
import { createDaemonMetrics } from '../../src/http/metrics.js';
import type { DaemonMetrics } from '../../src/http/metrics.js';
import type { IterationRecord } from '../../src/memory/history.js';
import { readTaskState } from '../../src/task/state.js';
import { systemClock } from '../../src/time/clock.js';
import { REPO_ROOT, requireBuild } from '../helpers/child.js';
import { parsePromText, samplesOf, sumOf, valueOf } from '../helpers/prom-text.js';
import type { Exposition } from '../helpers/prom-text.js';
import { tempDir } from '../helpers/temp-dir.js';
import { FAKE_AGENT, makeVault } from '../helpers/vault.js';
import type { TestVault, TestVaultOptions } from '../helpers/vault.js';

const STREAMER = join(REPO_ROOT, 'test', 'fixtures', 'agents', 'fake-claude-stream.mjs');

/** A real daemon in this process on `vault`, with its metrics, as the HTTP server makes them. */
async function daemonWithMetrics(vault: TestVault): Promise<{ daemon: RunningDaemon; metrics: DaemonMetrics }> {
  const daemon = await startDaemon(inProcessDaemonOptions(vault));
  const metrics = await createDaemonMetrics({
    events: daemon.events,
    layout: vault.layout,
    clock: systemClock,
    view: () => inspectVault(vault.layout, systemClock.now()),
  });
  return { daemon, metrics };
}

/** Drops the tasks into Approved/ and resolves once every one has settled. */
async function runToTheEnd(daemon: RunningDaemon, vault: TestVault, tasks: Record<string, string>): Promise<void> {
  const waiting = new Set(Object.keys(tasks));
  const allSettled = new Promise<void>((resolve) => {
    const release = daemon.events.on('settled', ({ taskId }) => {
      waiting.delete(taskId);
      if (waiting.size > 0) return;
      release();
      resolve();
    });
  });
  for (const [name, text] of Object.entries(tasks)) vault.task(name, text);
  await allSettled;
}

async function scrape(metrics: DaemonMetrics): Promise<Exposition> {
  const { contentType, body } = await metrics.render();
  expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePromText(body);
}

/** Every history line of the vault's tasks: their session folders and the archived ones. */
function histories(vault: TestVault): IterationRecord[] {
  const records: IterationRecord[] = [];
  for (const root of [vault.layout.sessions, vault.layout.archive]) {
    if (!existsSync(root)) continue;
    for (const folder of readdirSync(root)) {
      const file = join(root, folder, 'history.jsonl');
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, 'utf8').split('\n'))
        if (line !== '') records.push(JSON.parse(line) as IterationRecord);
    }
  }
  return records;
}

const mdFiles = (folder: string): string[] => readdirSync(folder).filter((name) => name.endsWith('.md'));

/** The iterations each ended task's checkpoint counts. */
async function checkpointIterations(folders: string[]): Promise<number> {
  let sum = 0;
  for (const folder of folders)
    for (const name of mdFiles(folder)) sum += (await readTaskState(join(folder, name)))?.loop?.iteration ?? 0;
  return sum;
}

/** `{ "harness outcome": count }` of the samples of a counter with those two labels. */
function byHarnessAndOutcome(text: Exposition, name: string): Record<string, number> {
  return Object.fromEntries(
    samplesOf(text, name).map((sample) => [`${sample.labels.harness} ${sample.labels.outcome}`, sample.value]),
  );
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

const TWO_STORIES = '---\ntitle: Two stories\n---\n- [ ] US-001 One\n- [ ] US-002 Two\n';
const ONE_STORY = '---\ntitle: One story\n---\n- [ ] US-001 One\n';

function agents(flakyState: string): TestVaultOptions {
  return {
    fake: { FAKE_STORY_PER_RUN: '1' },
    config: {
      harnesses: {
        // Its first run fails with EX_TEMPFAIL (retried after a backoff), the next ones work.
        flaky: {
          kind: 'command',
          command: FAKE_AGENT,
          env: { FAKE_STATE_FILE: flakyState, FAKE_FAIL_TIMES: '1', FAKE_EXIT_CODE: '75', FAKE_STORY_PER_RUN: '1' },
        },
        // EX_CONFIG at once: no retry fixes it, the task is rejected.
        broken: { kind: 'command', command: FAKE_AGENT, env: { FAKE_MODE: 'fail', FAKE_EXIT_CODE: '78' } },
        // Claude Code's stream with tokens and a cost, claiming completion while the story still fails.
        streamer: { kind: 'claude', command: STREAMER, args: [], env: { FAKE_DONE_AT: '1' } },
      },
    },
  };
}

describe('the metrics of a real daemon, checked against the vault', () => {
  test('tasks by state, runs and iterations, retries, refusals, tokens, cost, CPU, pickup and overhead', async () => {
    const vault = await makeVault(agents(join(tempDir('wiggum-flaky-'), 'runs')));
    const { daemon, metrics } = await daemonWithMetrics(vault);
    let starts = 0;
    daemon.events.on('loop', (event) => void (event.type === 'started' && (starts += 1)));

    await runToTheEnd(daemon, vault, {
      one: TWO_STORIES,
      two: ONE_STORY,
      flaky: ONE_STORY.replace('---\n- [ ]', 'harness: flaky\n---\n- [ ]'),
      bad: ONE_STORY.replace('---\n- [ ]', 'harness: broken\n---\n- [ ]'),
      claims: ONE_STORY.replace('---\n- [ ]', 'harness: streamer\nmax_iterations: 2\n---\n- [ ]'),
    });
    const { body } = await metrics.render();
    const text = parsePromText(body);

    // What the acceptance check greps: one line, the number of .md files in Done/.
    const doneLines = body.split('\n').filter((line) => /^[a-z_:]*task[a-z0-9_:]*\{[^}]*state="done"/.test(line));
    expect(doneLines).toEqual([`wiggum_tasks{state="done"} ${mdFiles(vault.layout.done).length}`]);
    // Tasks by state: Done/ and Rejected/ as they are on disk.
    expect(valueOf(text, 'wiggum_tasks', { state: 'done' })).toBe(mdFiles(vault.layout.done).length);
    expect(valueOf(text, 'wiggum_tasks', { state: 'rejected' })).toBe(mdFiles(vault.layout.rejected).length);
    expect(mdFiles(vault.layout.done).sort()).toEqual(['flaky.md', 'one.md', 'two.md']);
    expect(mdFiles(vault.layout.rejected).sort()).toEqual(['bad.md', 'claims.md']);

    // Every agent run is one history line, by harness and outcome.
    const records = histories(vault);
    expect(byHarnessAndOutcome(text, 'wiggum_harness_runs_total')).toEqual(
      countBy(records, (record) => `${record.harness} ${record.outcome}`),
    );
    // The iterations are the ones the ended tasks' checkpoints count.
    expect(sumOf(text, 'wiggum_iterations_total')).toBe(
      await checkpointIterations([vault.layout.done, vault.layout.rejected]),
    );
    expect(sumOf(text, 'wiggum_iterations_total', { harness: 'fake' })).toBe(3);
    expect(valueOf(text, 'wiggum_retries_total', { harness: 'flaky' })).toBe(
      records.filter((record) => record.action === 'retry').length,
    );
    expect(valueOf(text, 'wiggum_retries_total', { harness: 'flaky' })).toBe(1);
    expect(valueOf(text, 'wiggum_retries_total', { harness: 'fake' })).toBe(0);
    expect(valueOf(text, 'wiggum_completion_refusals_total', { harness: 'streamer' })).toBe(
      records.filter((record) => record.completionAccepted === false).length,
    );
    expect(valueOf(text, 'wiggum_completion_refusals_total', { harness: 'streamer' })).toBe(2);
    expect(valueOf(text, 'wiggum_usage_limit_waits_total', { harness: 'fake' })).toBe(0);

    // Tokens and cost as the agent CLI reported them, per run.
    const streamed = records.filter((record) => record.harness === 'streamer');
    const total = (pick: (usage: NonNullable<IterationRecord['usage']>) => number): number =>
      streamed.reduce((sum, record) => sum + (record.usage === undefined ? 0 : pick(record.usage)), 0);
    expect(total((usage) => usage.inputTokens)).toBeGreaterThan(0);
    expect(valueOf(text, 'wiggum_tokens_total', { harness: 'streamer', kind: 'input' })).toBe(
      total((usage) => usage.inputTokens),
    );
    expect(valueOf(text, 'wiggum_tokens_total', { harness: 'streamer', kind: 'output' })).toBe(
      total((usage) => usage.outputTokens),
    );
    expect(valueOf(text, 'wiggum_cost_usd_total', { harness: 'streamer' })).toBeCloseTo(
      total((usage) => usage.costUsd ?? 0),
      9,
    );
    expect(sumOf(text, 'wiggum_agent_cpu_seconds_total')).toBeCloseTo(
      records.reduce((sum, record) => sum + (record.resources?.cpuMs ?? 0), 0) / 1000,
      6,
    );

    // One pickup per start of a task's loop; every run's overhead, all of them run in this process.
    expect(valueOf(text, 'wiggum_task_pickup_seconds_count')).toBe(starts);
    expect(starts).toBe(5);
    expect(valueOf(text, 'wiggum_loop_overhead_seconds_count')).toBe(records.length);
    expect(valueOf(text, 'wiggum_daemon_starts_total')).toBe(1);
    expect(valueOf(text, 'wiggum_daemon_uptime_seconds')).toBeGreaterThanOrEqual(0);

    daemon.drain('the test is over');
    expect(await daemon.stopped).toBe(0);
    // Drained, the view comes from the files alone: the states add up to every task file.
    const after = await scrape(metrics);
    const files = [vault.layout.approved, vault.layout.done, vault.layout.rejected].reduce(
      (sum, folder) => sum + mdFiles(folder).length,
      0,
    );
    expect(sumOf(after, 'wiggum_tasks')).toBe(files);
    expect(valueOf(after, 'wiggum_queue_depth')).toBe(0);
    metrics.release();

    // The next daemon on the vault counts one start more, and its counters start again from 0.
    const next = await daemonWithMetrics(vault);
    const restarted = await scrape(next.metrics);
    expect(valueOf(restarted, 'wiggum_daemon_starts_total')).toBe(2);
    expect(sumOf(restarted, 'wiggum_harness_runs_total')).toBe(0);
    expect(valueOf(restarted, 'wiggum_tasks', { state: 'done' })).toBe(3);
    next.metrics.release();
    next.daemon.drain('the test is over');
    expect(await next.daemon.stopped).toBe(0);
  });

  test('the demo harness: its runs, its retry and its tasks under harness="demo"', async () => {
    requireBuild();
    const vault = await makeVault({ config: { harness: { default: 'demo' } } });
    const { daemon, metrics } = await daemonWithMetrics(vault);
    await runToTheEnd(daemon, vault, {
      demo: '---\ntitle: Demo\ndemo:\n  delay: 10ms\n  transient_failures: 1\n---\n- [ ] US-001 One\n- [ ] US-002 Two\n',
    });
    const text = await scrape(metrics);
    const records = histories(vault);
    expect(records.map((record) => record.harness)).toEqual(['demo', 'demo', 'demo']);
    expect(byHarnessAndOutcome(text, 'wiggum_harness_runs_total')).toEqual(
      countBy(records, (record) => `${record.harness} ${record.outcome}`),
    );
    expect(valueOf(text, 'wiggum_retries_total', { harness: 'demo' })).toBe(1);
    expect(sumOf(text, 'wiggum_iterations_total', { harness: 'demo' })).toBe(2);
    expect(valueOf(text, 'wiggum_tasks', { state: 'done' })).toBe(mdFiles(vault.layout.done).length);
    expect(valueOf(text, 'wiggum_tasks', { state: 'done' })).toBe(1);
    metrics.release();
    daemon.drain('the test is over');
    expect(await daemon.stopped).toBe(0);
  });
});
