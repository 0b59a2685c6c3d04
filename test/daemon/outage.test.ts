import { chmodSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { historyOf } from '../helpers/history.js';
import { isEvent } from '../helpers/log-events.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

/**
 * An outage of a harness's service across several running tasks of the real daemon: a command
 * harness (a real script) that fails like the network (exit 75, ECONNREFUSED) while a file the
 * test controls exists, and answers once it is gone.
 */
const daemons = drainedAfterEach();

function flakyService(): { agent: string; down: string } {
  const dir = tempDir('wiggum-outage-');
  const down = join(dir, 'down');
  const agent = join(dir, 'agent.sh');
  writeFileSync(
    agent,
    `#!/bin/sh
cat > /dev/null
if [ -e '${down}' ]; then
  echo "error: connect ECONNREFUSED 10.0.0.1:443 (could not reach the model service)" >&2
  exit 75
fi
printf 'Finished.\\n<promise>COMPLETE</promise>\\n'
`,
  );
  chmodSync(agent, 0o755);
  writeFileSync(down, '');
  return { agent, down };
}

async function outageVault(agent: string, loop: Record<string, unknown>): Promise<TestVault> {
  const vault = await makeVault({
    config: {
      daemon: { concurrency: 3 },
      persistence_loop: { retry: { max_attempts: 2, base_delay: '10ms', max_delay: '40ms' }, ...loop },
      harnesses: { flaky: { kind: 'command', command: agent } },
    },
  });
  for (const name of ['o1', 'o2', 'o3'])
    vault.task(name, `---\ntitle: ${name}\nharness: flaky\n---\n# ${name}\n\nDo the thing.\n`);
  return vault;
}

const outageLine = isEvent('harness.outage');
const ids = ['o1', 'o2', 'o3'];

describe('an outage of a harness', () => {
  test('pauses its 3 running tasks past their retries, shows them waiting on it, and resumes them all when it answers', async () => {
    const { agent, down } = flakyService();
    const vault = await outageVault(agent, {});
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();

    // Each task is paused on the harness, and goes on being probed past its 2 retries.
    // (The history is written after the log line, and a task may be paused before its own retries
    // are spent when the others fail too: so the runs themselves are waited for.)
    for (const id of ids)
      await daemon.waitForCount((line) => outageLine(line) && line.taskId === id, 3, `${id} waiting on the outage`);
    await waitFor(
      () => ids.every((id) => historyOf(vault.layout.sessions, id).length > 3),
      'each task probed past its 2 retries',
    );
    expect(readdirSync(vault.layout.rejected)).toEqual([]);

    const status = await runCli(['status', '--vault', vault.root]);
    for (const id of ids) expect(status.stdout).toMatch(new RegExp(`${id} .*waiting on harness flaky \\(outage`));
    const json = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
      tasks: { id: string; state: string; run?: { outage?: { harness: string } } }[];
    };
    expect(json.tasks.map((task) => [task.id, task.state, task.run?.outage?.harness]).sort()).toEqual(
      ids.map((id) => [id, 'outage', 'flaky']),
    );

    rmSync(down);
    await waitFor(
      () => ids.every((id) => existsSync(join(vault.layout.done, `${id}.md`))),
      'all 3 tasks in Done/',
      120_000,
    );
    for (const id of ids) {
      const history = historyOf(vault.layout.sessions, id);
      // All in iteration 1: the outage used no iteration.
      expect(history.every((record) => record.iteration === 1)).toBe(true);
      expect(history.at(-1)).toMatchObject({ outcome: 'complete', action: 'done' });
      expect(history.some((record) => record.action === 'wait' && record.nextState.startsWith('harness outage'))).toBe(
        true,
      );
    }
  });

  test('past persistence_loop.outage_max_wait, its tasks are rejected with a report that says outage', async () => {
    const { agent } = flakyService();
    const vault = await outageVault(agent, { outage_max_wait: '1s' });
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();
    await waitFor(
      () => ids.every((id) => existsSync(join(vault.layout.rejected, `${id}.md`))),
      'all 3 tasks in Rejected/',
      120_000,
    );
    for (const id of ids) {
      const report = readFileSync(join(vault.layout.rejected, `${id}.md`), 'utf8');
      expect(report).toContain('E_HARNESS_OUTAGE');
      expect(report).toContain('outage: the harness kept failing with network or overload errors');
      expect(report).toContain('persistence_loop.outage_max_wait');
    }
  });
});
