import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runTask } from '../../src/loop/run-task.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { requireBuild, runCli } from '../helpers/child.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { historyOf } from '../helpers/history.js';
import { makeVault } from '../helpers/vault.js';
import { vaultRunHost } from '../../src/vault/run-host.js';

/** The `.wiggum/…` folders a report names (in backticks), as paths inside the vault. */
function memoryNamedIn(text: string): string[] {
  const report = text.slice(text.indexOf('\n## '));
  return [...report.matchAll(/`(\.wiggum\/[^`]*)`/g)].map((match) => match[1]!);
}

/** Whether the memory folder `dir` (followed through its link) holds `marker` in its prd.json. */
function holds(root: string, dir: string, marker: string): boolean {
  return readFileSync(join(root, dir, 'prd.json'), 'utf8').includes(marker);
}

describe('a task id used again while its old run is in Done/', () => {
  test('the new task runs from its own checklist with fresh memory, and its Done/ file does not replace the old one', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const run = (file: string) =>
      runTask(
        { file, stream: null, signal: new AbortController().signal },
        {
          config: vault.config,
          host: vaultRunHost(vault.layout),
          clock: new FakeClock(),
          random: () => 0.5,
          logger: captureLogger().logger,
          env: process.env,
        },
      );
    const first = await run(vault.task('dup', '---\ntitle: One\n---\n- [ ] US-001 Alpha\n'));
    expect(first).toMatchObject({ status: 'done', iterations: 1 });
    const firstText = readFileSync(first.file, 'utf8');

    const second = await run(vault.task('dup', '---\ntitle: Two\n---\n- [ ] US-001 Beta\n- [ ] US-002 Gamma\n'));
    expect(second).toMatchObject({ status: 'done', iterations: 2 });
    expect(readdirSync(vault.layout.done).sort()).toEqual(['dup-2.md', 'dup.md']);
    expect(readFileSync(first.file, 'utf8')).toBe(firstText);
    // Its history is its own: two iterations over its own two stories, none of the old run's.
    expect(
      historyOf(vault.layout.sessions, 'dup').map((r) => [r.iteration, r.outcome, r.storiesPassing, r.storiesTotal]),
    ).toEqual([
      [1, 'continue', 1, 2],
      [2, 'complete', 2, 2],
    ]);
    expect(readFileSync(second.file, 'utf8')).toContain('Stories: 2 of 2 passing (✓ US-001 Beta; ✓ US-002 Gamma)');

    // Each report names the folder that holds its own run's memory, the old one's now archived.
    const [firstMemory, secondMemory] = [memoryNamedIn(firstText), memoryNamedIn(readFileSync(second.file, 'utf8'))];
    expect(firstMemory).toHaveLength(1);
    expect(secondMemory).toHaveLength(1);
    expect(firstMemory[0]).not.toBe(secondMemory[0]);
    expect([holds(vault.root, firstMemory[0]!, 'Alpha'), holds(vault.root, firstMemory[0]!, 'Beta')]).toEqual([
      true,
      false,
    ]);
    expect([holds(vault.root, secondMemory[0]!, 'Beta'), holds(vault.root, secondMemory[0]!, 'Alpha')]).toEqual([
      true,
      false,
    ]);

    // `status ID` of the old run names its memory, not the new run's.
    requireBuild();
    const status = await runCli(['status', 'dup', '--vault', vault.root]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('(Done/dup.md)');
    expect(status.stdout).toContain(`memory: ${firstMemory[0]} (now .wiggum/archive/`);
    const json = JSON.parse((await runCli(['status', 'dup', '--json', '--vault', vault.root])).stdout) as {
      session: string;
      iterations: number;
      recent: unknown[];
    };
    expect(holds(json.session, '.', 'Alpha')).toBe(true);
    expect(json).toMatchObject({
      iterations: 1,
      recent: [expect.objectContaining({ iteration: 1, outcome: 'complete', storiesTotal: 1 })],
    });
  });
});
