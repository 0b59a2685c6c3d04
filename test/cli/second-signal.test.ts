import { expect, test } from 'vitest';
import { drainedAfterEach } from '../helpers/daemon.js';
import { isRunning } from '../helpers/process-state.js';
import { startStubbornTask } from '../helpers/stubborn-agent.js';
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
