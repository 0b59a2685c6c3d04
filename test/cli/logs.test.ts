import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, REPO_ROOT, requireBuild, runCli, spawn } from '../helpers/child.js';
import type { ChildProcess } from 'node:child_process';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

const STREAMER = join(REPO_ROOT, 'test', 'fixtures', 'agents', 'fake-claude-stream.mjs');
const daemons = drainedAfterEach();

/** A vault whose `streamer` harness is a Claude-kind agent that waits at FAKE_GATE_DIR/go-N in run N. */
async function streamingVault(doneAt: number): Promise<{ vault: TestVault; gates: string }> {
  const gates = tempDir('wiggum-gates-');
  const vault = await makeVault({
    config: {
      harnesses: {
        streamer: {
          kind: 'claude',
          command: STREAMER,
          args: [],
          env: { FAKE_GATE_DIR: gates, FAKE_DONE_AT: String(doneAt) },
        },
      },
    },
  });
  return { vault, gates };
}

function open(gates: string, run: number): void {
  writeFileSync(join(gates, `go-${run}`), '');
}

/** The built CLI, run in the vault, its stdout collected as it comes. */
function watchCli(
  args: string[],
  cwd: string,
): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
  requireBuild();
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

const RAW_JSON = /^\s*\{"|"type"\s*:\s*"(assistant|user|system|result)"/m;

describe('wiggum logs', () => {
  test('--follow renders a running Claude agent, goes on into its next iterations and exits when the task ends; logs, --raw and status ID after', async () => {
    const { vault, gates } = await streamingVault(3);
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();
    vault.task('follow-me', '---\ntitle: Follow me\nharness: streamer\n---\n# Follow me\n\nDo it.\n');
    const firstLog = join(vault.layout.sessions, 'follow-me', 'logs', '0001.log');
    await waitFor(() => existsSync(firstLog), 'the first iteration to start its log');

    const follow = watchCli(['logs', 'FOLLOW-ME', '--follow'], vault.root);
    await waitFor(() => follow.out().includes('→ Bash: echo TOOL-1'), 'logs --follow to show the first tool call');
    expect(follow.out()).toContain('── iteration 1 · streamer · ');
    expect(follow.out()).toContain('TEXT of run 1');

    // While it runs, status ID names the log being written.
    const status = await runCli(['status', 'follow-me'], { cwd: vault.root });
    expect(status.code).toBe(0);
    const named = /current log: (\S+\.log)/.exec(status.stdout)?.[1];
    expect(named, status.stdout).toMatch(/logs\/0001\.log$/);
    expect(existsSync(join(vault.root, named!))).toBe(true);

    open(gates, 1);
    await waitFor(
      () => follow.out().includes('→ Bash: echo TOOL-2'),
      'logs --follow to go on into the second iteration',
    );
    expect(follow.out()).toContain('  ← RESULT-1');
    expect(follow.out()).toContain('── iteration 2 · streamer · ');
    open(gates, 2);
    open(gates, 3);
    expect(await follow.exited).toBe(0);
    expect(existsSync(join(vault.layout.done, 'follow-me.md'))).toBe(true);
    expect(follow.out()).toContain('  ← RESULT-3');
    expect(follow.out()).not.toMatch(RAW_JSON);

    const after = await runCli(['logs', 'follow-me'], { cwd: vault.root });
    expect(after.code).toBe(0);
    const order = [
      '── iteration 1',
      'TEXT of run 1',
      '→ Bash: echo TOOL-1',
      '← RESULT-1',
      '── iteration 2',
      'TEXT of run 2',
      '── iteration 3',
      'TEXT of run 3',
      '← RESULT-3',
    ];
    const positions = order.map((text) => after.stdout.indexOf(text));
    expect(
      positions.every((at) => at >= 0),
      after.stdout,
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(after.stdout).toContain('✓ Claude Code finished');
    expect(after.stdout).not.toMatch(RAW_JSON);

    const raw = await runCli(['logs', 'follow-me', '--raw'], { cwd: vault.root });
    expect(raw.code).toBe(0);
    expect(raw.stdout).toMatch(/"type":"assistant"/);
    expect(raw.stdout.split('\n').filter((line) => line.includes('"type":"result"'))).toHaveLength(3);
    expect(raw.stderr).toContain('── iteration 3');

    const ended = await runCli(['status', 'follow-me'], { cwd: vault.root });
    expect(ended.stdout).toMatch(/last log: \S+logs\/0003\.log/);
  });

  test('an unknown task is a usage error that says what to do; a task that never ran has no log yet, and --follow says no daemon runs', async () => {
    const vault = await makeVault();
    const unknown = await runCli(['logs', 'nope'], { cwd: vault.root });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/nope/);
    vault.task('fresh', '---\ntitle: Fresh\n---\n# Fresh\n');
    const fresh = await runCli(['logs', 'fresh'], { cwd: vault.root });
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toContain('fresh has no harness log yet');
    // --follow with no daemon says so and waits for it; Ctrl-C ends it with exit 0.
    const waiting = watchCli(['logs', 'fresh', '--follow'], vault.root);
    await waitFor(() => waiting.out().includes('no daemon runs in'), 'logs --follow to say that no daemon runs');
    expect(waiting.out()).toContain('fresh goes on once wiggum start runs it');
    waiting.child.kill('SIGINT');
    expect(await waiting.exited).toBe(0);
  });

  test("a command harness's log is shown as the text it printed", async () => {
    const vault = await makeVault({ fake: { FAKE_PRINT: 'plain words from the agent\n', FAKE_COMPLETE_AFTER: '2' } });
    const file = vault.task('plain', '---\ntitle: Plain\n---\n- [ ] US-001 One\n');
    expect((await runCli(['run', file, '--no-stream'])).code).toBe(0);
    const shown = await runCli(['logs', 'plain', '--vault', vault.root]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /── iteration 1 · fake · \.wiggum\/\S+\/logs\/0001\.log\nplain words from the agent\n/,
    );
    expect(shown.stdout).toContain('── iteration 2 · fake');
  });
});
