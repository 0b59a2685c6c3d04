import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { CLI, REPO_ROOT, requireBuild, spawn } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

const STREAMER = join(REPO_ROOT, 'test', 'fixtures', 'agents', 'fake-claude-stream.mjs');
const daemons = drainedAfterEach();

/** The built CLI through a pipe, its output split into the frames it printed (the last one may still be coming). */
function watch(
  args: string[],
  cwd: string,
): { child: ChildProcess; frames: () => string[]; exited: Promise<number | null> } {
  requireBuild();
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Piped, a frame starts with its "wiggum HH:MM:SS" line after a blank line; the last one may be partial.
  const frames = (): string[] => out.split(/\n(?=wiggum \d\d:\d\d:\d\d · )/).slice(0, -1);
  return { child, frames, exited };
}

describe('wiggum status --watch', () => {
  test('piped: a frame a second of the running task (iteration, time, tokens and cost, last event) and the held one; Ctrl-C exits 0', async () => {
    const gates = tempDir('wiggum-gates-');
    const vault = await makeVault({
      config: {
        harnesses: {
          streamer: { kind: 'claude', command: STREAMER, args: [], env: { FAKE_GATE_DIR: gates, FAKE_DONE_AT: '3' } },
        },
      },
    });
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();
    writeFileSync(join(vault.layout.approved, 'parked.stop'), '');
    vault.task('parked', '---\ntitle: Parked\nharness: streamer\n---\n# Parked\n');
    vault.task('busy', '---\ntitle: Busy\nharness: streamer\n---\n# Busy\n');

    const view = watch(['status', '--watch'], vault.root);
    const frameWith = (...texts: string[]) =>
      view.frames().find((frame) => texts.every((text) => frame.includes(text)));
    // The tool call is read from the agent's log, the iteration from status.json, which the daemon
    // writes coalesced (200 ms): a frame may show the one before the other, so both are waited for.
    const toolCallFrame = (): string | undefined => frameWith('→ Bash: echo TOOL-1', 'the 1st running');
    await waitFor(() => toolCallFrame() !== undefined, "a frame with the running iteration and the agent's tool call");
    const running = toolCallFrame()!;
    expect(running).toMatch(/^wiggum \d\d:\d\d:\d\d · /);
    expect(running).toMatch(/Approved 2 · Blocked 0 · Review 0 · Done 0 · Rejected 0/);
    expect(running).toMatch(
      /running \(1\):\n {2}busy · iterations 0 of \d+ done, the 1st running · running \d+s \(task \d+s\) · streamer · no tokens yet\n {6}→ Bash: echo TOOL-1\n/,
    );
    expect(running).toContain('stopped (1):\n  parked · held: its stop flag (wiggum resume parked)\n');

    writeFileSync(join(gates, 'go-1'), '');
    await waitFor(
      () => frameWith('the 2nd running', '1,540 tokens · $0.0125') !== undefined,
      "a frame with the first iteration's tokens and cost",
    );
    expect(view.frames().length).toBeGreaterThanOrEqual(2);
    expect(view.frames().join('\n')).not.toContain('\x1b[');

    view.child.kill('SIGINT');
    expect(await view.exited).toBe(0);
    // The agent goes on to the end, so the daemon's drain finds nothing waiting at a gate.
    for (const run of [2, 3]) writeFileSync(join(gates, `go-${run}`), '');
  });

  test('top is the same view; status --watch with a task id is a usage error', async () => {
    const vault = await makeVault();
    vault.task('waiting-one', '---\ntitle: W\n---\n# W\n');
    const top = watch(['top'], vault.root);
    await waitFor(() => top.frames().length >= 1, 'two frames of top');
    expect(top.frames()[0]).toContain('daemon: not running');
    expect(top.frames()[0]).toContain('queued (1):\n  waiting-one · queued');
    top.child.kill('SIGTERM');
    expect(await top.exited).toBe(0);

    const refused = watch(['status', 'waiting-one', '--watch'], vault.root);
    expect(await refused.exited).toBe(2);
  });
});
