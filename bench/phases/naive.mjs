// wiggum against the simplest peer: a shell for-loop that runs the agent and greps its output for
// the promise, persisting nothing. Both run the same agent 200 times; both figures are
// (wall − the agent's own time) / iterations, the agent's own time being the floor of spawning it.
import { spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../lib/cleanup.mjs';
import { makeVault, taskText } from '../lib/fixtures.mjs';
import { summarize, timeSamples } from '../lib/stats.mjs';
import { spawnAndWait } from './floors.mjs';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

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
 * `rounds` times each (interleaved): the naive loop, and `wiggum run` as a whole process on a
 * fresh task with `max_iterations: iterations` (it ends rejected, having run every iteration).
 */
export async function naiveLoop({ iterations = 200, rounds = 3 } = {}) {
  const root = tempDir('naive');
  const agent = writeQuickAgent(root);
  const naive = writeNaiveLoop(root);
  const prompt = join(root, 'prompt.md');
  writeFileSync(prompt, taskText(1, { harness: 'quick' }));
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
  const agentFloor = summarize(await timeSamples(200, 20, () => spawnAndWait(agent)));

  const naivePerIteration = [];
  const wiggumPerIteration = [];
  for (let round = 0; round < rounds; round += 1) {
    const plain = await wallOf(naive, [agent, String(iterations), prompt]);
    if (plain.code !== 1) throw new Error(`the naive loop exited ${plain.code}`);
    naivePerIteration.push(plain.ms / iterations - agentFloor.p50);
    const file = join(vault.approved, `naive-${round}.md`);
    writeFileSync(file, taskText(round, { harness: 'quick', maxIterations: iterations }));
    const run = await wallOf(process.execPath, [CLI, 'run', file, '--no-stream', '--log-level', 'warn'], { cwd: root });
    if (run.code !== 1) throw new Error(`wiggum run exited ${run.code} (expected 1: rejected after max_iterations)`);
    wiggumPerIteration.push(run.ms / iterations - agentFloor.p50);
  }
  const naiveStats = summarize(naivePerIteration);
  const wiggumStats = summarize(wiggumPerIteration);
  return {
    iterations,
    rounds,
    agentFloor,
    naive: naiveStats,
    wiggum: wiggumStats,
    ratio: wiggumStats.p50 / naiveStats.p50,
  };
}
