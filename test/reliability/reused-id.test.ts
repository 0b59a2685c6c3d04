import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runTask } from '../../src/loop/run-task.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { historyOf } from '../helpers/history.js';
import { makeVault } from '../helpers/vault.js';

describe('a task id used again while its old run is in Done/', () => {
  test('the new task runs from its own checklist with fresh memory, and its Done/ file does not replace the old one', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const run = (file: string) =>
      runTask({ file, stream: null, signal: new AbortController().signal }, { config: vault.config, layout: vault.layout, clock: new FakeClock(), random: () => 0.5, logger: captureLogger().logger, env: process.env });
    const first = await run(vault.task('dup', '---\ntitle: One\n---\n- [ ] US-001 Alpha\n'));
    expect(first).toMatchObject({ status: 'done', iterations: 1 });
    const firstText = readFileSync(first.file, 'utf8');

    const second = await run(vault.task('dup', '---\ntitle: Two\n---\n- [ ] US-001 Beta\n- [ ] US-002 Gamma\n'));
    expect(second).toMatchObject({ status: 'done', iterations: 2 });
    expect(readdirSync(vault.layout.done).sort()).toEqual(['dup-2.md', 'dup.md']);
    expect(readFileSync(first.file, 'utf8')).toBe(firstText);
    // Its history is its own: two iterations over its own two stories, none of the old run's.
    expect(historyOf(vault.layout.sessions, 'dup').map((r) => [r.iteration, r.outcome, r.storiesPassing, r.storiesTotal])).toEqual([
      [1, 'continue', 1, 2],
      [2, 'complete', 2, 2],
    ]);
    expect(readFileSync(second.file, 'utf8')).toContain('Stories: 2 of 2 passing (✓ US-001 Beta; ✓ US-002 Gamma)');
  });
});
