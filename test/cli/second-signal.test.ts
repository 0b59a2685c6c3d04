import { expect, onTestFinished, test } from 'vitest';
import { CLI, requireBuild, spawn } from '../helpers/child.js';
import { drainedAfterEach } from '../helpers/daemon.js';
import { isRunning } from '../helpers/process-state.js';
import { makeStubbornVault, startStubbornTask, stubbornPids } from '../helpers/stubborn-agent.js';
import { waitFor } from '../helpers/wait.js';

const daemons = drainedAfterEach();

/**
 * The daemon kills the agents; the command exits the process. A second SIGTERM during a drain that
 * agents ignoring SIGTERM hold up (long graces) must still end `wiggum start` at once, with code 3,
 * and leave no agent behind.
 */
test('wiggum start: a second SIGTERM during the drain kills every agent at once and exits 3', async () => {
  const { daemon, pids } = await startStubbornTask(
    { daemon: { drain_grace: '10m' }, harness: { stop_grace: '10m' } },
    daemons,
  );

  daemon.kill('SIGTERM');
  await daemon.waitForEvent('daemon.draining');
  daemon.kill('SIGTERM');

  expect(await daemon.exited).toEqual({ code: 3, signal: null });
  await waitFor(() => pids.every((pid) => !isRunning(pid)), 'the agent and its child to be killed');
});

/**
 * `run` stops the same way: the first SIGTERM stops the agent within its (here endless) grace and
 * checkpoints; a second exits at once with code 3, and kills the agent and its child on the way out.
 */
test('wiggum run: a second SIGTERM while the agent ignores the first kills it at once and exits 3', async () => {
  const { vault, pidFile } = await makeStubbornVault({ harness: { stop_grace: '10m' } });

  const file = vault.task('stubborn', '---\ntitle: stubborn\n---\n- [ ] S-1 never ends\n');
  requireBuild();
  const child = spawn(process.execPath, [CLI, 'run', file, '--no-stream'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const signalled: unknown[] = [];
  let buffered = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      const fields = JSON.parse(line) as { signal?: unknown };
      if (fields.signal !== undefined) signalled.push(fields.signal);
    }
  });
  const pids = await stubbornPids(pidFile);
  // A failing run of this test must not leave an agent that ignores SIGTERM behind.
  onTestFinished(() => {
    for (const pid of [child.pid, ...pids]) if (pid !== undefined && isRunning(pid)) process.kill(pid, 'SIGKILL');
  });

  child.kill('SIGTERM');
  await waitFor(() => signalled.length === 1, 'the first SIGTERM to be acted on');
  expect(pids.every((pid) => isRunning(pid))).toBe(true); // ignored: the grace is ten minutes
  child.kill('SIGTERM');

  expect(await exited).toBe(3);
  expect(signalled).toEqual(['SIGTERM', 'SIGTERM']);
  await waitFor(() => pids.every((pid) => !isRunning(pid)), 'the agent and its child to be killed');
});
