// Loop overhead per iteration: runTask in this process on a temp vault whose harness is /bin/true.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../dist/config/load.js';
import { runTask } from '../../dist/loop/run-task.js';
import { systemClock } from '../../dist/time/clock.js';
import { vaultLayout } from '../../dist/vault/layout.js';
import { vaultRunHost } from '../../dist/vault/run-host.js';
import { tempDir } from '../lib/cleanup.mjs';
import { makeVault, taskText } from '../lib/fixtures.mjs';
import { summarize, timeSamples } from '../lib/stats.mjs';
import { spawnAndWait } from './floors.mjs';

// The harness exits at once and changes nothing, so every iteration is "ok, no progress":
// no_progress_limit 0 keeps the breaker off, and max_iterations ends the task after the samples.
const CONFIG = [
  'harness:',
  '  default: instant',
  'harnesses:',
  '  instant:',
  '    kind: command',
  '    command: /bin/true',
  '    args: []',
  'persistence_loop:',
  '  no_progress_limit: 0',
  '',
].join('\n');

/**
 * Runs one task for `warmup + n + 1` iterations and returns, per iteration k after the warm-up,
 *   overhead_k = (t(iteration event k+1) − t(iteration event k)) − durationMs_k
 * where t() is performance.now() when runTask's onEvent delivers the event (the loop emits
 * `iteration` right before it builds the prompt and spawns), and durationMs_k is the harness run's
 * duration from history (runProcess: open the log, spawn, wait for exit and for the pipes, close
 * the log; rounded to whole ms). So the overhead is everything the loop does per iteration
 * besides running the harness: reading memory and the task, the prompt, git, history append,
 * decide, the checkpoint write (fsync included), the stop/hold checks and the logging.
 */
export async function loopOverhead({ n, warmup, git, files = 50, maxMs = Infinity, minN = n, sandbox = 'off' }) {
  const root = tempDir(git ? `loop-git-${files}` : `loop-${sandbox}`);
  // The loop's own figures are measured unconfined (sandbox.mode: off), as they were before the
  // sandbox; the sandbox phase (sandboxCost) measures both ways side by side.
  const vault = makeVault(root, `${CONFIG}sandbox:\n  mode: ${sandbox}\n`);
  let workdir = null;
  if (git) {
    workdir = 'repo';
    const repo = join(root, 'repo');
    mkdirSync(repo);
    const run = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    run('init', '--quiet', '--initial-branch=main');
    writeFileSync(join(repo, 'README.md'), '# bench repo\n');
    // Spread over folders of 100, as a real source tree is.
    for (let i = 0; i < files; i += 1) {
      const folder = join(repo, 'src', `area-${Math.floor(i / 100)}`);
      if (i % 100 === 0) mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `module-${i}.ts`), `export const value${i} = ${i};\n`);
    }
    run('add', '.');
    run('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '--quiet', '-m', 'initial');
  }
  const total = warmup + n + 1;
  const file = join(vault.approved, `loop-${git ? `git-${files}` : 'plain'}.md`);
  writeFileSync(file, taskText(3, { harness: 'instant', workdir, maxIterations: total }));

  const config = await loadConfig({ vault: root });
  const layout = vaultLayout(root, config);
  // As the daemon logs: pino JSON lines, synchronously, at the default level (here into /dev/null).
  const logger = pino(
    { level: config.log.level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ dest: '/dev/null', sync: true }),
  );

  const starts = [];
  const ends = [];
  const durations = [];
  const controller = new AbortController();
  let began = null;
  const result = await runTask(
    {
      file,
      stream: null,
      signal: controller.signal,
      onEvent: (event) => {
        const now = performance.now();
        if (event.type === 'iteration') starts.push(now);
        if (event.type === 'iteration-end') {
          ends.push(now);
          durations.push(event.record.durationMs);
          if (event.record.exitCode !== 0) throw new Error(`the harness failed: ${JSON.stringify(event.record)}`);
          // Time box: stop between iterations (the loop checkpoints, then its gate sees the abort).
          if (ends.length === warmup) began = now;
          if (began !== null && ends.length - warmup > minN && now - began > maxMs) controller.abort('interrupted');
        }
      },
    },
    { config, host: vaultRunHost(layout), clock: systemClock, random: Math.random, logger, env: process.env },
  );
  const timeBoxed = result.status === 'interrupted' && controller.signal.aborted;
  if (!timeBoxed && (result.iterations !== total || result.code !== 'E_MAX_ITERATIONS'))
    throw new Error(`the loop ended early: ${JSON.stringify(result)}`);

  const overhead = [];
  const around = [];
  const between = [];
  const wall = [];
  const harness = [];
  for (let k = warmup; k < Math.min(starts.length, ends.length + 1) - 1; k += 1) {
    const cycle = starts[k + 1] - starts[k];
    wall.push(cycle);
    harness.push(durations[k]);
    overhead.push(cycle - durations[k]);
    around.push(ends[k] - starts[k] - durations[k]);
    between.push(starts[k + 1] - ends[k]);
  }
  // The git floor: one `git status` as the loop runs it (spawn to exit), in the same repository.
  const gitFloor = git
    ? summarize(
        await timeSamples(50, 5, () =>
          spawnAndWait('git', ['-C', join(root, 'repo'), 'status', '--porcelain', '--untracked-files=all']),
        ),
      )
    : null;
  return {
    figure: summarize(overhead),
    gitFloor,
    iterationWall: summarize(wall),
    harnessDuration: summarize(harness),
    aroundHarness: summarize(around),
    afterIteration: summarize(between),
  };
}

/**
 * What confining an agent costs per iteration: the whole iteration (loop and harness, /bin/true as
 * the agent) with sandbox.mode off beside the default auto (bubblewrap), measured in one run.
 */
export async function sandboxCost({ n, warmup, maxMs }) {
  const off = await loopOverhead({ n, warmup, git: false, maxMs, minN: Math.min(n, 50), sandbox: 'off' });
  const confined = await loopOverhead({ n, warmup, git: false, maxMs, minN: Math.min(n, 50), sandbox: 'auto' });
  return {
    off: off.iterationWall,
    confined: confined.iterationWall,
    extraP50Ms: confined.iterationWall.p50 - off.iterationWall.p50,
    confinedHarness: confined.harnessDuration,
    confinedAround: confined.figure,
  };
}
