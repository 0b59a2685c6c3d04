#!/usr/bin/env node
// `npm run bench`: wiggum's performance figures against their budgets, each next to the
// floor this machine sets for it, measured in the same run. One table on stdout, everything in
// bench/results.json. See docs/performance.md for the method.
//
//   node bench/run.mjs [--only checkpoint,inspect,loop,naive,prompt,status,pickup,worktrees,throughput,scaleout] [--profile DIR]
//
// --profile DIR adds --cpu-prof to the daemons and to one extra `wiggum status` run each way, and
// writes the .cpuprofile files to DIR (figures from a profiled run are not comparable).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cleanupAll } from './lib/cleanup.mjs';
import { renderTable } from './lib/table.mjs';
import { summarize, timeSamples } from './lib/stats.mjs';
import { spawnTrue } from './phases/floors.mjs';
import { checkpointWrite, stateInspection } from './phases/in-process.mjs';
import { loopOverhead, sandboxCost } from './phases/loop.mjs';
import { naiveLoop } from './phases/naive.mjs';
import { pickup, throughput, throughputFloor } from './phases/daemon-run.mjs';
import { promptEconomy, promptTable } from './phases/prompt.mjs';
import { vault10k } from './phases/vault10k.mjs';
import { worktreesParallel } from './phases/worktrees.mjs';
import { scaleout } from './phases/scaleout.mjs';

const ALL = [
  'checkpoint',
  'inspect',
  'loop',
  'sandbox',
  'naive',
  'prompt',
  'status',
  'pickup',
  'worktrees',
  'throughput',
];
// Phases run only when named with --only: scaleout takes 1.5 to 2.5 minutes of agents sleeping,
// which would push `npm run bench` past its four.
const OPT_IN = ['scaleout'];
const { values } = parseArgs({ options: { only: { type: 'string' }, profile: { type: 'string' } } });
const only = new Set(values.only === undefined ? ALL : values.only.split(','));
for (const name of only)
  if (!ALL.includes(name) && !OPT_IN.includes(name))
    throw new Error(`--only: unknown phase ${name} (phases: ${[...ALL, ...OPT_IN].join(', ')})`);
const profileDir = values.profile === undefined ? null : resolve(values.profile);
if (profileDir !== null) mkdirSync(profileDir, { recursive: true });
const profileArgs = (name) => (profileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`]);

// The targets wiggum holds itself to (tighter than the limits it promises users: 300 ms pickup,
// 500 ms status, 150 MB), each checked against its figure in the table.
const BUDGET = {
  checkpointP95Ms: 5,
  checkpointFloorRatio: 2,
  loopP50Ms: 5,
  loopP95Ms: 10,
  loopGitP95Ms: 15,
  loopBigGitP95Ms: 30,
  naiveRatio: 4,
  inspectP95Ms: 1,
  pickupP95Ms: 200,
  statusMs: 300,
  throughputPerS: 40,
  idleRssMb: 100,
  burstRssMb: 150,
  worktreesParallelToOne: 1.5,
  scaleoutSpeedUp4: 3,
};

const began = performance.now();
const results = {
  startedAt: new Date().toISOString(),
  machine: { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, loadavgAtStart: loadavg() },
  commit: gitHead(),
  budgets: BUDGET,
  phases: {},
};
const rows = [];
const progress = (text) =>
  process.stderr.write(`bench: ${text} (${((performance.now() - began) / 1000).toFixed(0)} s)\n`);

/** Runs one phase; a failure is recorded as a failing row and the other phases still run. */
async function phase(name, title, run) {
  progress(title);
  try {
    await run();
  } catch (error) {
    process.stderr.write(`bench: ${title} failed: ${error?.stack ?? error}\n`);
    results.phases[name] = { error: String(error?.message ?? error) };
    rows.push({
      figure: `${title}: ERROR (see bench/results.json)`,
      unit: '',
      stats: null,
      budget: { text: 'runs', pass: false },
    });
  }
}

let spawnFloor = null;
try {
  if (only.has('checkpoint')) {
    await phase('checkpoint', 'checkpoint write', async () => {
      const r = await checkpointWrite({ n: 1000, warmup: 100, maxMs: 10_000, minN: 300 });
      results.phases.checkpoint = r;
      // p95 within 5 ms, or within 2× the fsync floor measured beside it when the disk itself is slower.
      const pass = r.figure.p95 <= BUDGET.checkpointP95Ms || r.figure.p95 <= BUDGET.checkpointFloorRatio * r.floor.p95;
      rows.push({
        figure: `checkpoint write, updateTaskFile (${(r.bytes / 1024).toFixed(1)} KB task)`,
        unit: 'ms',
        stats: r.figure,
        budget: { text: 'p95 ≤ 5 ms or ≤ 2× floor', pass },
        floor: { name: "fsync'd write+rename, same bytes", stats: r.floor },
      });
    });
  }
  if (only.has('inspect')) {
    await phase('inspect', 'state inspection', async () => {
      const r = await stateInspection({ n: 2000, warmup: 200, maxMs: 5_000, minN: 500 });
      results.phases.inspect = r;
      const floor = { name: 'fs.promises.readFile, same file', stats: r.floor };
      rows.push({
        figure: 'state inspection, readTaskState of one task',
        unit: 'ms',
        stats: r.figure,
        budget: p95Budget(r.figure, BUDGET.inspectP95Ms),
        floor,
      });
      rows.push({ figure: 'full task read, readTaskFile (reference)', unit: 'ms', stats: r.fullRead, floor });
    });
  }
  if (only.has('loop') || only.has('pickup')) {
    await phase('spawnFloor', 'floor: spawn /bin/true', async () => {
      spawnFloor = summarize(await timeSamples(300, 20, spawnTrue, { maxMs: 4_000, minN: 100 }));
      results.phases.spawnFloor = spawnFloor;
    });
  }
  const spawnFloorRef = () => (spawnFloor === null ? undefined : { name: 'spawn /bin/true', stats: spawnFloor });
  if (only.has('sandbox')) {
    await phase('sandbox', 'an iteration confined by bubblewrap beside an unconfined one', async () => {
      const r = await sandboxCost({ n: 100, warmup: 10, maxMs: 8_000 });
      results.phases.sandbox = r;
      rows.push({
        figure: 'iteration (loop + /bin/true agent), unconfined (sandbox.mode: off)',
        unit: 'ms',
        stats: r.off,
      });
      rows.push({
        figure: 'iteration (loop + /bin/true agent), confined (bubblewrap, pids cgroup, prlimit)',
        unit: 'ms',
        stats: r.confined,
      });
      rows.push({
        figure: `  of which the confined agent's run (bwrap start included); sandbox cost per iteration, p50: ${r.extraP50Ms.toFixed(1)} ms`,
        unit: 'ms',
        stats: r.confinedHarness,
      });
    });
  }
  if (only.has('loop')) {
    await phase('loopPlain', 'loop overhead, no git', async () => {
      const r = await loopOverhead({ n: 300, warmup: 20, git: false, maxMs: 8_000, minN: 100 });
      results.phases.loopPlain = r;
      const pass = r.figure.p50 <= BUDGET.loopP50Ms && r.figure.p95 <= BUDGET.loopP95Ms;
      rows.push({
        figure: 'loop overhead per iteration, no git',
        unit: 'ms',
        stats: r.figure,
        budget: { text: 'p50 ≤ 5, p95 ≤ 10 ms', pass },
        floor: spawnFloorRef(),
      });
    });
    await phase('loopGit', 'loop overhead, git workdir', async () => {
      const r = await loopOverhead({ n: 150, warmup: 10, git: true, maxMs: 10_000, minN: 60 });
      results.phases.loopGit = r;
      rows.push({
        figure: 'loop overhead per iteration, git workdir',
        unit: 'ms',
        stats: r.figure,
        budget: p95Budget(r.figure, BUDGET.loopGitP95Ms, 'p95 ≤ 15 ms'),
        floor: spawnFloorRef(),
      });
      rows.push({ figure: 'floor: git status --porcelain, spawn to exit', unit: 'ms', stats: r.gitFloor });
    });
    await phase('loopBigGit', 'loop overhead, 5,000-file git workdir', async () => {
      const r = await loopOverhead({ n: 100, warmup: 5, git: true, files: 5000, maxMs: 12_000, minN: 40 });
      results.phases.loopBigGit = r;
      rows.push({
        figure: 'loop overhead per iteration, 5,000-file git workdir',
        unit: 'ms',
        stats: r.figure,
        budget: p95Budget(r.figure, BUDGET.loopBigGitP95Ms, 'p95 ≤ 30 ms'),
        floor: spawnFloorRef(),
      });
      rows.push({ figure: 'floor: git status --porcelain, 5,000 files', unit: 'ms', stats: r.gitFloor });
    });
  }
  if (only.has('naive')) {
    await phase('naive', 'wiggum run against a naive shell loop, 200 iterations', async () => {
      const r = await naiveLoop({ iterations: 200, rounds: 3 });
      results.phases.naive = r;
      const floor = { name: "naive loop (wall − agent's own time) / 200", stats: r.naive };
      rows.push({ figure: "naive loop: (wall − agent's own time) / iteration", unit: 'ms', stats: r.naive });
      if (r.ralph !== null) {
        rows.push({
          figure: "snarktank/ralph ralph.sh: (wall − agent's own time) / iteration",
          unit: 'ms',
          stats: r.ralph,
          floor,
        });
      } else {
        rows.push({
          figure: `snarktank/ralph: not run (${r.ralphMissing}; sh bench/peers/fetch-peers.sh, or WIGGUM_BENCH_PEERS_DIR=DIR)`,
          unit: '',
          stats: null,
        });
      }
      rows.push({
        figure: "wiggum run: (wall − agent's own time) / iteration",
        unit: 'ms',
        stats: r.wiggum,
        budget: {
          text: r.ralph === null ? '≤ 4× naive (p50)' : '≤ 4× naive, ≤ ralph (p50)',
          pass: r.ratio <= BUDGET.naiveRatio && (r.ralph === null || r.wiggum.p50 <= r.ralph.p50),
        },
        floor,
      });
      rows.push({
        figure: 'floor: spawn the agent, wait for exit (p50 of each round)',
        unit: 'ms',
        stats: r.agentFloor,
      });
      const b = r.breakdown;
      rows.push({
        figure: `where a profiled wiggum run's ${b.wallPerIterationMs.toFixed(1)} ms per iteration go (--cpu-prof, main thread):`,
        unit: '',
        stats: null,
      });
      rows.push({
        figure: `  fsync waits (${b.fsyncsPerIteration.toFixed(1)} per iteration; overlap the idle below)`,
        unit: 'ms',
        stats: share(b.fsyncWaitPerIterationMs),
      });
      for (const [part, ms] of Object.entries(b.partsMsPerIteration))
        rows.push({
          figure: `  ${part === '(idle)' ? '(idle: the agent, fsyncs, pipes)' : part}`,
          unit: 'ms',
          stats: share(ms),
        });
    });
  }
  if (only.has('prompt')) {
    await phase('prompt', 'prompt economy, 5-story task', async () => {
      const r = promptEconomy();
      results.phases.prompt = r;
      for (const n of [1, 10]) {
        const w = r.wiggum[n];
        const peer = r.leanest[n];
        rows.push({
          figure: `prompt: wiggum adds beyond the task's words, iteration ${n}`,
          unit: 'B/tok',
          stats: { n: 1, p50: NaN, p95: NaN, p99: NaN, max: NaN },
          value: `${w.addedBytes} / ${w.addedTokens}`,
          budget: {
            text: `≤ leanest peer (${peer.addedBytes} B / ${peer.addedTokens} tok)`,
            pass: w.addedBytes <= peer.addedBytes && w.addedTokens <= peer.addedTokens,
          },
        });
      }
    });
  }
  if (only.has('status')) {
    await phase('vault10k', '10,000-task vault: status, idle daemon memory, HTTP API', async () => {
      const r = await vault10k({
        statusN: 12,
        statusWarmup: 1,
        statusMaxMs: 15_000,
        api: { freshN: 15, freshWarmup: 1, sharedN: 200, sharedWarmup: 20, maxMs: 10_000 },
        nodeArgs: profileArgs('daemon-idle'),
        profileArgs: profileDir === null ? null : profileArgs,
      });
      results.phases.vault10k = r;
      rows.push({
        figure: 'wiggum status --json, 10k tasks, no daemon',
        unit: 'ms',
        stats: r.withoutDaemon.figure,
        budget: p95Budget(r.withoutDaemon.figure, BUDGET.statusMs, 'p95 ≤ 300 ms'),
        floor: { name: 'spawn node -e 0', stats: r.withoutDaemon.floor },
      });
      rows.push({
        figure: 'wiggum status --json, 10k tasks, daemon up',
        unit: 'ms',
        stats: r.idle.status.figure,
        budget: p95Budget(r.idle.status.figure, BUDGET.statusMs, 'p95 ≤ 300 ms'),
        floor: { name: 'spawn node -e 0', stats: r.idle.status.floor },
      });
      rows.push({
        figure: 'wiggum --help (CLI start-up, reference)',
        unit: 'ms',
        stats: r.cliStartup,
        floor: { name: 'spawn node -e 0', stats: r.withoutDaemon.floor },
      });
      rows.push({
        figure: 'daemon RSS, at rest over 10k tasks (1k held), 30 s',
        unit: 'MB',
        stats: r.idle.rss,
        budget: { text: '≤ 100 MB', pass: r.idle.rss.max <= BUDGET.idleRssMb },
      });
      rows.push({ figure: 'daemon RSS, 2 s after start-up (reference)', unit: 'MB', stats: r.idle.afterStartup });
      rows.push({
        figure: 'daemon peak RSS (VmHWM), 10k start-up (reference)',
        unit: 'MB',
        stats: single(r.idle.hwmMb),
      });
      const api = r.withApi;
      const kb = `${(api.state.bytes / 1024).toFixed(0)} KB`;
      rows.push({
        figure: 'GET /api/v1/state, 10k tasks, fresh (vault read: > 500 ms apart)',
        unit: 'ms',
        stats: api.state.fresh,
        budget: p95Budget(api.state.fresh, BUDGET.statusMs, "p95 ≤ 300 ms (status's)"),
        floor: { name: 'wiggum status --json, interleaved', stats: api.state.statusFloor },
      });
      rows.push({
        figure: 'GET /api/v1/state, 10k tasks, shared (back to back, one read)',
        unit: 'ms',
        stats: api.state.shared,
        floor: { name: `bare node:http, same ${kb}`, stats: api.state.floor },
      });
      rows.push({
        figure: `floor: bare node:http on 127.0.0.1, static ${kb} body, keep-alive`,
        unit: 'ms',
        stats: api.state.floor,
      });
      rows.push({
        figure: 'daemon RSS, at rest over 10k tasks (1k held), 30 s, HTTP API on',
        unit: 'MB',
        stats: api.rss,
        budget: { text: '≤ 100 MB', pass: api.rss.max <= BUDGET.idleRssMb },
        floor: { name: 'the same, API off', stats: r.idle.rss },
      });
      rows.push({
        figure: 'daemon RSS at rest, API on − off (p50)',
        unit: 'MB',
        stats: { n: 1, p50: NaN, p95: NaN, p99: NaN, max: NaN },
        value: `${api.rss.p50 - r.idle.rss.p50 >= 0 ? '+' : ''}${(api.rss.p50 - r.idle.rss.p50).toFixed(1)}`,
      });
      rows.push({
        figure: `daemon RSS after those ${api.state.requests} requests, API on (reference)`,
        unit: 'MB',
        stats: api.rssAfterRequests,
      });
    });
  }
  if (only.has('pickup')) {
    await phase('pickup', 'pickup latency', async () => {
      const r = await pickup({ n: 40, warmup: 3, maxMs: 20_000, minN: 20, nodeArgs: profileArgs('daemon-pickup') });
      results.phases.pickup = r;
      rows.push({
        figure: 'file dropped → harness started',
        unit: 'ms',
        stats: r.figure,
        budget: p95Budget(r.figure, BUDGET.pickupP95Ms, 'p95 ≤ 200 ms'),
        floor: spawnFloorRef(),
      });
    });
  }
  if (only.has('worktrees')) {
    await phase('worktrees', '4 tasks on one repository, each in its own worktree', async () => {
      const r = await worktreesParallel({ tasks: 4, rounds: 2, workS: 2 });
      results.phases.worktrees = r;
      const oneFloor = { name: 'one such task alone', stats: r.one };
      rows.push({
        figure: `${r.tasks} tasks on one repository at once, agent ${r.workS} s: drop → all in Done/`,
        unit: 'ms',
        stats: r.parallel,
        budget: {
          text: `≤ ${BUDGET.worktreesParallelToOne}× one task (p50), all ran together, each on its own branch`,
          pass: r.parallelToOne <= BUDGET.worktreesParallelToOne && r.problems.length === 0,
        },
        floor: oneFloor,
      });
      rows.push({ figure: 'floor: one such task alone, drop → Done/', unit: 'ms', stats: r.one });
      rows.push({
        figure: `the same ${r.tasks}, git.max_parallel_per_repo: 1 (serial)`,
        unit: 'ms',
        stats: summarize([r.serialMs]),
        floor: oneFloor,
      });
      const ratio = (figure, value) =>
        rows.push({
          figure,
          unit: '×',
          stats: { n: 1, p50: NaN, p95: NaN, p99: NaN, max: NaN },
          value: value.toFixed(2),
        });
      ratio(`${r.tasks} at once ÷ one alone (p50)`, r.parallelToOne);
      ratio(`serial ÷ ${r.tasks} at once (p50)`, r.serialToParallel);
      for (const problem of r.problems) rows.push({ figure: `  worktrees: ${problem}`, unit: '', stats: null });
    });
  }
  if (only.has('throughput')) {
    await phase('throughput', 'throughput, 1,000 tasks', async () => {
      const floor = await throughputFloor({ tasks: 1000, concurrency: 4 });
      results.phases.throughputFloor = floor;
      // Capped so the whole bench stays under 3 minutes; tasks left in Approved/ are counted too.
      const r = await throughput({
        tasks: 1000,
        concurrency: 4,
        capMs: 70_000,
        nodeArgs: profileArgs('daemon-throughput'),
      });
      results.phases.throughput = r;
      const c = r.check;
      rows.push({
        figure: `throughput, ${r.tasks} one-iteration tasks, concurrency ${r.concurrency}`,
        unit: 'task/s',
        stats: { n: c.doneAtCap, p50: NaN, p95: NaN, p99: NaN, max: NaN },
        value: r.tasksPerSecond.toFixed(1),
        budget: {
          text: '≥ 40/s, none lost or twice',
          pass: c.noneLost && c.noneTwice && r.tasksPerSecond >= BUDGET.throughputPerS,
        },
      });
      rows.push({
        figure: 'floor: 4 workers spawn the agent, rename to Done/',
        unit: 'task/s',
        stats: { n: floor.tasks, p50: NaN, p95: NaN, p99: NaN, max: NaN },
        value: floor.tasksPerSecond.toFixed(1),
      });
      rows.push({
        figure: 'throughput ÷ its floor (reference)',
        unit: '×',
        stats: { n: 1, p50: NaN, p95: NaN, p99: NaN, max: NaN },
        value: (r.tasksPerSecond / floor.tasksPerSecond).toFixed(2),
      });
      rows.push({
        figure: 'daemon CPU per task done, throughput run (reference)',
        unit: 'ms',
        stats: single(r.cpuMsPerTask),
      });
      rows.push({ figure: 'daemon RSS during throughput (samples)', unit: 'MB', stats: r.rss });
      rows.push({
        figure: 'daemon peak RSS (VmHWM), throughput run',
        unit: 'MB',
        stats: single(r.hwmMb),
        budget: { text: '≤ 150 MB', pass: r.hwmMb <= BUDGET.burstRssMb },
      });
    });
  }
  if (only.has('scaleout')) {
    await phase('scaleout', 'scale-out: vault host, redis-server and 1, 2, 4 workers', async () => {
      const r = await scaleout({ workerCounts: [1, 2, 4], tasks: 40, sleepS: 1, doneAt: 1 });
      results.phases.scaleout = r;
      const value = (figure, unit, text) =>
        rows.push({ figure, unit, stats: { n: 1, p50: NaN, p95: NaN, p99: NaN, max: NaN }, value: text });
      for (const round of r.rounds) {
        const n = `${round.workers} worker${round.workers === 1 ? '' : 's'}`;
        rows.push({
          figure: `scale-out, ${r.tasks} tasks (agent ${r.sleepS} s), ${n}: drop → all in Done/`,
          unit: 'ms',
          stats: summarize([round.wallMs]),
          floor: {
            name: `${r.tasks} × ${r.doneAt * r.sleepS} s ÷ ${round.workers}`,
            stats: summarize([round.floorMs]),
          },
        });
        value(`  rate, ${n}`, 'tasks/s', round.ratePerS.toFixed(2));
        rows.push({
          figure: `  enqueue (queue.dispatched) → agent started, ${n}`,
          unit: 'ms',
          stats: round.enqueueToStart,
        });
        rows.push({
          figure: `  one agent's end → the next's start on a busy worker, ${n}`,
          unit: 'ms',
          stats: round.handoff,
        });
      }
      for (const round of r.rounds.filter((x) => x.workers > 1)) {
        const row = { figure: `scale-out speed-up, ${round.workers} workers ÷ 1`, unit: '×' };
        if (round.workers === 4)
          row.budget = {
            text: `≥ ${BUDGET.scaleoutSpeedUp4}× and every task ran once, on a worker, pushed`,
            pass: round.speedUp >= BUDGET.scaleoutSpeedUp4 && r.problems.length === 0,
          };
        rows.push({ ...row, stats: { n: 1, p50: NaN, p95: NaN, p99: NaN, max: NaN }, value: round.speedUp.toFixed(2) });
      }
      for (const problem of r.problems) rows.push({ figure: `  scale-out: ${problem}`, unit: '', stats: null });
    });
  }
  if (spawnFloor !== null)
    rows.push({ figure: 'floor: spawn /bin/true, wait for exit', unit: 'ms', stats: spawnFloor });
} finally {
  cleanupAll();
}

results.machine.loadavgAtEnd = loadavg();
results.elapsedSeconds = (performance.now() - began) / 1000;
results.rows = rows;
results.allPass = rows.every((row) => row.budget === undefined || row.budget.pass);
writeFileSync(join(import.meta.dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);

process.stdout.write(`\n${renderTable(rows)}\n\n`);
if (results.phases.prompt?.wiggum !== undefined) process.stdout.write(`${promptTable(results.phases.prompt)}\n\n`);
process.stdout.write(
  `node ${process.version}, ${results.machine.cpus} × ${results.machine.cpu}; load average ${results.machine.loadavgAtStart.map((v) => v.toFixed(2)).join(' ')} at start, ` +
    `${results.machine.loadavgAtEnd.map((v) => v.toFixed(2)).join(' ')} at end; ${results.elapsedSeconds.toFixed(0)} s; details in bench/results.json\n`,
);
if (results.phases.throughput?.check !== undefined) {
  const { check: c, capMs } = results.phases.throughput;
  process.stdout.write(
    `throughput: ${c.finishedWithinCap ? 'all finished' : `NOT finished within the ${capMs / 1000} s cap (${c.doneAtCap} done; the daemon was then drained)`}; ` +
      `after the daemon stopped: ${c.done} in Done/, ${c.leftInApproved} in Approved/, ${c.rejected} in Rejected/, ${c.harnessRuns} harness runs for ${c.distinctTasksRun} tasks; ` +
      `none lost: ${c.noneLost ? 'yes' : 'NO'}, none ran twice: ${c.noneTwice ? 'yes' : 'NO'}\n`,
  );
}
process.stdout.write(
  `${
    results.allPass
      ? 'all budgets PASS'
      : `FAIL: ${rows
          .filter((row) => row.budget?.pass === false)
          .map((row) => row.figure)
          .join('; ')}`
  }\n`,
);

/** One figure per iteration, shown in the p50 column. */
function share(value) {
  return { n: 1, p50: value, p95: NaN, p99: NaN, max: NaN };
}

function single(value) {
  return { n: 1, p50: NaN, p95: NaN, p99: NaN, max: value };
}

function p95Budget(stats, limit, text = `p95 ≤ ${limit} ms`) {
  return { text, pass: stats.p95 <= limit };
}

function gitHead() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: import.meta.dirname, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}
