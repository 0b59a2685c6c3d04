// wiggum against the simplest peers: a shell for-loop that runs the agent and greps its output for
// the promise, persisting nothing, and snarktank/ralph's ralph.sh (fetched by
// bench/peers/fetch-peers.sh, never kept in this repository). All run the same agent 200 times; each
// figure is (wall − the agent's own time) / iterations, the agent's own time being the floor of
// spawning it, measured in the same round. One more, profiled, `wiggum run` says where the rest goes.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../lib/cleanup.mjs';
import { makeVault, taskText } from '../lib/fixtures.mjs';
import { profileBuckets } from '../lib/profile-buckets.mjs';
import { summarize, timeSamples } from '../lib/stats.mjs';
import { spawnAndWait } from './floors.mjs';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const FSYNC_METER = join(import.meta.dirname, '..', 'lib', 'fsync-meter.mjs');

/** Where the peers' scripts are: $WIGGUM_BENCH_PEERS_DIR, else bench/peers/cache (fetch-peers.sh). */
export function peersDir() {
  return process.env.WIGGUM_BENCH_PEERS_DIR ?? join(import.meta.dirname, '..', 'peers', 'cache');
}

/**
 * snarktank/ralph's loop, ready to run in its own folder: ralph.sh beside the prompt.md it pipes to
 * the agent, and a PATH whose `amp` is our agent. Its `sleep 2` between iterations is a fixed pause,
 * not the loop's cost: a `sleep` that returns at once comes first on that PATH. No prd.json, so it
 * does not call jq. null when ralph.sh is not there.
 */
function ralphSetup(root, agent, promptText) {
  const script = join(peersDir(), 'ralph.sh');
  if (!existsSync(script)) return null;
  const dir = join(root, 'ralph');
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  copyFileSync(script, join(dir, 'ralph.sh'));
  writeFileSync(join(dir, 'prompt.md'), promptText);
  symlinkSync(agent, join(bin, 'amp'));
  writeFileSync(join(bin, 'sleep'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'sleep'), 0o755);
  return { dir, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } };
}

/** An agent that answers at once and never claims completion: every loop runs all its iterations. */
function writeQuickAgent(dir) {
  const path = join(dir, 'quick-agent.sh');
  writeFileSync(path, '#!/bin/sh\necho "looked at the task; nothing to change yet"\n');
  chmodSync(path, 0o755);
  return path;
}

/** The naive loop of the simplest peers, as a bash script: no memory, no checkpoint, no git. */
function writeNaiveLoop(dir) {
  const path = join(dir, 'naive-loop.sh');
  writeFileSync(
    path,
    [
      '#!/bin/bash',
      'agent=$1; iterations=$2; prompt=$3',
      'for ((i = 1; i <= iterations; i++)); do',
      '  out=$("$agent" < "$prompt")',
      '  if printf "%s" "$out" | grep -q "<promise>COMPLETE</promise>"; then exit 0; fi',
      'done',
      'exit 1',
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return path;
}

function wallOf(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { stdio: 'ignore', ...options });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, ms: performance.now() - start }));
  });
}

/**
 * `rounds` times each (interleaved): the agent's floor, the naive loop, ralph.sh when it is there,
 * and `wiggum run` as a whole process on a fresh task with `max_iterations: iterations` (it ends
 * rejected, having run every iteration). Then one profiled `wiggum run` for the breakdown.
 */
export async function naiveLoop({ iterations = 200, rounds = 3 } = {}) {
  const root = tempDir('naive');
  const agent = writeQuickAgent(root);
  const naive = writeNaiveLoop(root);
  const prompt = join(root, 'prompt.md');
  const promptText = taskText(1, { harness: 'quick' });
  writeFileSync(prompt, promptText);
  const config = [
    'harness:',
    '  default: quick',
    'harnesses:',
    '  quick:',
    '    kind: command',
    `    command: ${agent}`,
    '    args: []',
    'persistence_loop:',
    '  no_progress_limit: 0',
    '',
  ].join('\n');
  const vault = makeVault(root, config);
  const ralph = ralphSetup(root, agent, promptText);

  const floorSamples = [];
  const naivePerIteration = [];
  const ralphPerIteration = [];
  const wiggumPerIteration = [];
  const runWiggum = async (name, nodeArgs = [], env = process.env) => {
    const file = join(vault.approved, `${name}.md`);
    writeFileSync(file, taskText(0, { harness: 'quick', maxIterations: iterations }));
    const run = await wallOf(process.execPath, [...nodeArgs, CLI, 'run', file, '--no-stream', '--log-level', 'warn'], {
      cwd: root,
      env,
    });
    if (run.code !== 1) throw new Error(`wiggum run exited ${run.code} (expected 1: rejected after max_iterations)`);
    return run;
  };
  for (let round = 0; round < rounds; round += 1) {
    // The agent's own time, measured in this round: a shared machine's load moves it from round to round.
    const floor = summarize(await timeSamples(60, 10, () => spawnAndWait(agent)));
    floorSamples.push(floor.p50);
    const plain = await wallOf(naive, [agent, String(iterations), prompt]);
    if (plain.code !== 1) throw new Error(`the naive loop exited ${plain.code}`);
    naivePerIteration.push(plain.ms / iterations - floor.p50);
    if (ralph !== null) {
      const peer = await wallOf('bash', ['ralph.sh', '--tool', 'amp', String(iterations)], {
        cwd: ralph.dir,
        env: ralph.env,
      });
      if (peer.code !== 1) throw new Error(`ralph.sh exited ${peer.code} (expected 1: max iterations reached)`);
      ralphPerIteration.push(peer.ms / iterations - floor.p50);
    }
    const run = await runWiggum(`naive-${round}`);
    wiggumPerIteration.push(run.ms / iterations - floor.p50);
  }
  const naiveStats = summarize(naivePerIteration);
  const wiggumStats = summarize(wiggumPerIteration);
  const ralphStats = ralph === null ? null : summarize(ralphPerIteration);
  return {
    iterations,
    rounds,
    agentFloor: summarize(floorSamples),
    naive: naiveStats,
    wiggum: wiggumStats,
    ralph: ralphStats,
    ralphMissing: ralph === null ? `no ralph.sh in ${peersDir()}` : null,
    ratio: wiggumStats.p50 / naiveStats.p50,
    breakdown: await breakdown(root, runWiggum, iterations),
  };
}

/**
 * One more `wiggum run`, under --cpu-prof and with its fsyncs timed (fsync-meter.mjs): ms per
 * iteration of each part of the loop (profile-buckets.mjs), and the fsyncs' count and wait per
 * iteration. Profiling slows the process down: the parts are shares, not figures to hold.
 */
async function breakdown(root, runWiggum, iterations) {
  const profileDir = join(root, 'profile');
  const fsyncOut = join(root, 'fsyncs.json');
  const run = await runWiggum(
    'naive-profiled',
    ['--import', FSYNC_METER, '--cpu-prof', `--cpu-prof-dir=${profileDir}`],
    {
      ...process.env,
      WIGGUM_BENCH_FSYNC_OUT: fsyncOut,
    },
  );
  const [profile] = readdirSync(profileDir);
  const fsyncs = JSON.parse(readFileSync(fsyncOut, 'utf8'));
  return {
    wallPerIterationMs: run.ms / iterations,
    fsyncsPerIteration: fsyncs.count / iterations,
    fsyncWaitPerIterationMs: fsyncs.totalMs / iterations,
    partsMsPerIteration: profileBuckets(join(profileDir, profile), iterations),
  };
}
