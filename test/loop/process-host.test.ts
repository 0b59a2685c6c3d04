import { describe, expect, test } from 'vitest';
import { systemProcessHost } from '../../src/harness/process-host.js';
import type { ProcessHost } from '../../src/harness/process-host.js';
import { runTask } from '../../src/loop/run-task.js';
import type { RunTaskDeps } from '../../src/loop/request.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createFakeProcess, fakeHost } from '../helpers/fake-process.js';
import { FAKE_AGENT, makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { vaultRunHost } from '../../src/vault/run-host.js';

const TASK = '---\ntitle: Dark mode\n---\n# Dark mode\n\n- [ ] US-001 Theme context\n';
const VERIFIED = TASK.replace('title: Dark mode\n', 'title: Dark mode\nverify: tests\n');

function deps(vault: TestVault, processes: ProcessHost): RunTaskDeps {
  return {
    config: vault.config,
    host: vaultRunHost(vault.layout),
    clock: new FakeClock(),
    random: () => 0.5,
    logger: captureLogger().logger,
    env: process.env,
    processes,
  };
}

describe('the loop starts and stops processes through deps.processes', () => {
  test('the harness and the verify check are both spawned through it', async () => {
    // Unconfined: the commands the host is asked to start are the harness's and the check's own,
    // not the sandbox's wrapper chain (test/sandbox covers that).
    const vault = await makeVault({
      fake: { FAKE_COMPLETE_AFTER: '1' },
      config: { checks: { tests: { command: '/bin/sh', args: ['-c', 'exit 0'] } }, sandbox: { mode: 'off' } },
    });
    const commands: string[] = [];
    const recording: ProcessHost = {
      ...systemProcessHost,
      spawn: (command, args, options) => {
        commands.push(command);
        return systemProcessHost.spawn(command, args, options);
      },
    };
    const result = await runTask(
      { file: vault.task('dark-mode', VERIFIED), stream: null, signal: new AbortController().signal },
      deps(vault, recording),
    );
    expect(result.status).toBe('done');
    expect(commands).toEqual([FAKE_AGENT, '/bin/sh']);
  });

  test('a stop while the harness runs is SIGTERM to its group through the host: no real process, no sleeping', async () => {
    // A fake process host runs nothing, so nothing to confine: unconfined.
    const vault = await makeVault({ config: { sandbox: { mode: 'off' } } });
    const agent = createFakeProcess('exit');
    const host = fakeHost(agent);
    const stop = new AbortController();
    const run = runTask({ file: vault.task('dark-mode', TASK), stream: null, signal: stop.signal }, deps(vault, host));
    await Promise.race([host.clock.sleeping(), run]); // the harness is running: its timers are armed
    expect(host.spawns.map((spawn) => spawn.command)).toEqual([FAKE_AGENT]);
    stop.abort('interrupted');
    const result = await run;
    expect(host.signals).toEqual(['SIGTERM']);
    expect(result.status).toBe('interrupted');
  });
});
