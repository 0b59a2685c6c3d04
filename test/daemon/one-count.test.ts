import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import { requireBuild, runCli } from '../helpers/child.js';
import { DaemonProcess } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { waitFor, waitForFile } from '../helpers/wait.js';

/** The first number after "iter…" in a text, as a person (or a script) reads the count. */
function firstCount(text: string): number | null {
  const match = /iter(?:ation)?s?[^0-9a-z]{0,3}#?([0-9]+)/i.exec(text);
  return match === null ? null : Number(match[1]);
}

describe('one iteration count', () => {
  test('while the 2nd iteration runs, the frontmatter, status, status ID, status --json and Dashboard.md all say 1 done', async () => {
    requireBuild();
    const gates = tempDir('wiggum-gates-');
    const vault = await makeVault({
      fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gates },
      config: { daemon: { dashboard_debounce: '50ms' } },
    });
    writeFileSync(join(gates, 'go-1'), '');
    const file = vault.task('tally', '---\ntitle: Tally\nmax_iterations: 8\n---\n- [ ] S-1 one\n- [ ] S-2 two\n');
    const daemon = DaemonProcess.start(vault.root);
    // Run 2 waits at its gate: iteration 1 is checkpointed, the 2nd is running.
    await waitForFile(join(vault.marks, 'run-2'));
    const checkpoint = (): unknown => {
      const parsed = parseTask(file, readFileSync(file, 'utf8'));
      return parsed.ok ? parsed.task.frontmatter.persistence_loop?.iteration : null;
    };
    expect(checkpoint()).toBe(1);
    await waitFor(
      async () =>
        (
          JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
            tasks: { run?: { current?: number } }[];
          }
        ).tasks[0]?.run?.current === 2,
      'status to show the 2nd running',
    );

    const json = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
      tasks: Record<string, unknown>[];
    };
    expect(json.tasks).toEqual([
      expect.objectContaining({
        id: 'tally',
        state: 'running',
        iterations: 1,
        maxIterations: 8,
        run: expect.objectContaining({ current: 2 }) as unknown,
      }),
    ]);
    const all = (await runCli(['status', '--vault', vault.root])).stdout;
    const line = all.split('\n').find((text) => text.includes('tally'));
    expect(line).toContain('iterations 1 of 8 done, the 2nd running');
    expect(firstCount(line ?? '')).toBe(1);
    const one = (await runCli(['status', 'tally', '--vault', vault.root])).stdout;
    expect(one).toContain('state running, iterations 1 of 8 done, the 2nd running');
    expect(firstCount(one)).toBe(1);
    await waitFor(
      () => readFileSync(join(vault.root, 'Dashboard.md'), 'utf8').includes('| 1 of 8 done, the 2nd running |'),
      'the Dashboard to show the count',
    );
    expect(checkpoint()).toBe(1);

    writeFileSync(join(gates, 'go-2'), '');
    const done = join(vault.layout.done, 'tally.md');
    await waitForFile(done);
    daemon.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
    // After Done: the frontmatter, the report, the log and status ID say 2.
    const text = readFileSync(done, 'utf8');
    expect(text).toMatch(/^ {2}iteration: 2$/m);
    expect(text).toContain('after 2 iterations');
    const last = daemon.lines
      .filter(
        (l) => l.taskId === 'tally' && (typeof l['iterations'] === 'number' || typeof l['iteration'] === 'number'),
      )
      .at(-1);
    expect(last?.['iterations'] ?? last?.['iteration']).toBe(2);
    expect(firstCount((await runCli(['status', 'tally', '--vault', vault.root])).stdout)).toBe(2);
  });
});
