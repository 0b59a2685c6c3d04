// Through the real daemon (`wiggum start`): pickup latency, and throughput of 1,000 tasks.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tempDir } from '../lib/cleanup.mjs';
import { Daemon } from '../lib/daemon.mjs';
import { daemonConfig, makeVault, taskText, writeBenchAgent } from '../lib/fixtures.mjs';
import { sleep, summarize, timeBox, wallMs } from '../lib/stats.mjs';

function daemonVault(prefix) {
  const root = tempDir(prefix);
  const marks = join(root, 'marks');
  const vault = makeVault(root, daemonConfig(writeBenchAgent(root), marks));
  mkdirSync(marks);
  return { ...vault, marks };
}

/** The wall time (ms since the epoch) the bench agent wrote when it started for `taskId`. */
function harnessStartedAt(marks, taskId) {
  const file = join(marks, `${taskId}.start`);
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8').trim().replace(',', '.');
  if (text === '') return null;
  return Number(text) * 1000;
}

async function waitFor(what, predicate, timeoutMs, everyMs = 5) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = predicate();
    if (value !== null && value !== false) return value;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

const logTime = (line) => Date.parse(line.time);

/**
 * File dropped → harness started: with the daemon idle, the bench writes one task file into
 * Approved/ (t0 = wall clock just before the write) and the harness writes $EPOCHREALTIME as its
 * first act (t1). Latency = t1 − t0, both CLOCK_REALTIME on this machine. One task at a time; the
 * next is dropped once the previous is in Done/, after a random 0–100 ms pause.
 */
export async function pickup({ n, warmup, maxMs = Infinity, minN = n, nodeArgs = [] }) {
  const vault = daemonVault('pickup');
  const daemon = Daemon.start(vault.root, { logDir: tempDir('pickup-log'), nodeArgs });
  try {
    await daemon.waitForLog(/"event":"daemon.started"/);
    await sleep(500);
    const latencies = [];
    const dropped = new Map();
    const box = timeBox(maxMs, minN);
    for (let i = 0; i < warmup + n && box.more(latencies.length); i += 1) {
      const id = `pickup-${String(i).padStart(3, '0')}`;
      const file = join(vault.approved, `${id}.md`);
      const text = taskText(i, { stories: 3 });
      const t0 = wallMs();
      writeFileSync(file, text);
      const t1 = await waitFor(`the harness of ${id}`, () => harnessStartedAt(vault.marks, id), 10_000);
      await waitFor(`${id} in Done/`, () => existsSync(join(vault.done, `${id}.md`)), 10_000);
      if (i >= warmup) {
        latencies.push(t1 - t0);
        dropped.set(`${id}.md`, { t0, t1 });
      }
      await sleep(Math.random() * 100);
    }
    // Split by the daemon's own log (ms resolution): drop → "queued" (watcher: event, debounce,
    // settle, parse) and "queued" → harness started (scheduler, runTask up to the spawn).
    const watcher = [];
    const runner = [];
    for (const line of daemon.lines()) {
      if (line.event !== 'task.queued' || typeof line.file !== 'string') continue;
      const drop = dropped.get(basename(line.file));
      if (drop === undefined) continue;
      watcher.push(logTime(line) - drop.t0);
      runner.push(drop.t1 - logTime(line));
    }
    return { figure: summarize(latencies), dropToQueued: summarize(watcher), queuedToHarness: summarize(runner) };
  } finally {
    await daemon.stop();
  }
}

/**
 * 1,000 one-iteration tasks written into Approved/ at once, daemon at --concurrency 4. Throughput
 * = tasks in Done/ / (time of the last one − first file written). The run is capped at `capMs` so
 * the bench stays under 3 minutes: past the cap the daemon is drained and the throughput is what
 * finished by then (the row says so and fails). Checked after the daemon has stopped: every task is
 * in Done/ or still in Approved/ (none lost, none in Rejected/), and runs.log (one line per harness
 * run) names each task in Done/ exactly once and no task twice. The daemon's RSS is sampled every
 * 250 ms; VmHWM is its peak over the whole run. The daemon's CPU time (start-up included) is divided
 * by the tasks done.
 */
export async function throughput({ tasks, concurrency, capMs, nodeArgs = [] }) {
  const vault = daemonVault('throughput');
  const daemon = Daemon.start(vault.root, {
    logDir: tempDir('throughput-log'),
    nodeArgs,
    args: ['--concurrency', String(concurrency)],
  });
  let stopped = false;
  try {
    await daemon.waitForLog(/"event":"daemon.started"/);
    await sleep(500);
    const texts = Array.from({ length: tasks }, (_, i) => taskText(i, { stories: 3 }));
    const rss = [];
    const t0 = performance.now();
    for (let i = 0; i < tasks; i += 1)
      writeFileSync(join(vault.approved, `tp-${String(i).padStart(4, '0')}.md`), texts[i]);
    const writeAllMs = performance.now() - t0;
    const countDone = () => readdirSync(vault.done).filter((name) => name.endsWith('.md')).length;
    let doneCount = 0;
    let lastSample = 0;
    let lastDoneAt = t0;
    while (doneCount < tasks && performance.now() - t0 < capMs) {
      if (daemon.exitCode !== undefined)
        throw new Error(
          `the daemon exited (${daemon.exitCode}) during the throughput run:\n${daemon.log().slice(-2000)}`,
        );
      const now = countDone();
      if (now > doneCount) lastDoneAt = performance.now();
      doneCount = now;
      if (performance.now() - lastSample >= 250) {
        rss.push(daemon.memory().rssMb);
        lastSample = performance.now();
      }
      if (doneCount < tasks) await sleep(20);
    }
    const finished = doneCount === tasks;
    const elapsedMs = finished ? lastDoneAt - t0 : performance.now() - t0;
    const { hwmMb } = daemon.memory();
    // CPU per task is steadier than the rate on a shared machine: other processes take wall time, not this.
    const cpuMs = daemon.cpuMs();
    await daemon.stop(30_000);
    stopped = true;

    const count = (dir) => readdirSync(dir).filter((name) => name.endsWith('.md')).length;
    const inDone = new Set(
      readdirSync(vault.done)
        .filter((name) => name.endsWith('.md'))
        .map((name) => name.slice(0, -3)),
    );
    const runs = readFileSync(join(vault.marks, 'runs.log'), 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    const perTask = new Map();
    for (const id of runs) perTask.set(id, (perTask.get(id) ?? 0) + 1);
    const ranTwice = [...perTask.entries()].filter(([, n]) => n > 1).map(([id]) => id);
    const doneNotOnce = [...inDone].filter((id) => perTask.get(id) !== 1);
    const check = {
      finishedWithinCap: finished,
      doneAtCap: doneCount,
      done: inDone.size,
      leftInApproved: count(vault.approved),
      rejected: count(vault.rejected),
      harnessRuns: runs.length,
      distinctTasksRun: perTask.size,
      ranMoreThanOnce: ranTwice.slice(0, 10),
      doneNotExactlyOnce: doneNotOnce.slice(0, 10),
    };
    check.noneLost = check.done + check.leftInApproved === tasks && check.rejected === 0;
    check.noneTwice = ranTwice.length === 0 && doneNotOnce.length === 0;
    check.allOnce = finished && check.noneLost && check.noneTwice && check.done === tasks && runs.length === tasks;
    return {
      tasks,
      concurrency,
      capMs,
      elapsedMs,
      writeAllMs,
      tasksPerSecond: doneCount / (elapsedMs / 1000),
      cpuMsPerTask: cpuMs / Math.max(1, doneCount),
      check,
      rss: summarize(rss),
      rssTimeline: rss,
      hwmMb,
    };
  } finally {
    if (!stopped) await daemon.stop(30_000);
  }
}

/**
 * The floor of the throughput figure, measured just before it: the same task files and the same
 * agent, driven by the least a runner can do. `concurrency` workers take the files in name order;
 * each writes a fresh prd.json, spawns the agent (its output read to the end) and renames the task
 * file into Done/. No parse, no lock, no checkpoint, no fsync, no watcher: what is left is spawning,
 * reaping and moving on this machine, at this moment.
 */
export async function throughputFloor({ tasks, concurrency }) {
  const vault = daemonVault('throughput-floor');
  const agent = join(vault.root, 'bench-agent.sh');
  const names = Array.from({ length: tasks }, (_, i) => `tp-${String(i).padStart(4, '0')}.md`);
  for (let i = 0; i < tasks; i += 1) writeFileSync(join(vault.approved, names[i]), taskText(i, { stories: 3 }));
  const prd = JSON.stringify({ userStories: [1, 2, 3].map((n) => ({ id: `US-00${n}`, passes: false })) });
  let next = 0;
  const worker = async (w) => {
    const prdFile = join(vault.root, `prd-${w}.json`);
    while (next < names.length) {
      const name = names[next++];
      writeFileSync(prdFile, prd);
      await new Promise((resolve, reject) => {
        const child = spawn(agent, [], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...process.env,
            BENCH_MARKS: vault.marks,
            WIGGUM_TASK_ID: name.slice(0, -3),
            WIGGUM_PRD: prdFile,
            WIGGUM_PROMISE: 'COMPLETE',
          },
        });
        child.stdout.resume();
        child.stderr.resume();
        child.once('error', reject);
        child.once('close', resolve);
      });
      renameSync(join(vault.approved, name), join(vault.done, name));
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  const elapsedMs = performance.now() - t0;
  return { tasks, concurrency, elapsedMs, tasksPerSecond: tasks / (elapsedMs / 1000) };
}
