import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { TaskRunResult } from '../../src/loop/events.js';
import type { RunOverrides } from '../../src/loop/prepare.js';
import { runTask } from '../../src/loop/run-task.js';
import { parseTask } from '../../src/task/parse.js';
import { captureLogger } from '../helpers/capture-logger.js';
import type { LogLine } from '../helpers/capture-logger.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { waitForFile } from '../helpers/wait.js';
import { runDeps } from '../helpers/run-deps.js';

/**
 * What the user adds to a running task's file reaches the loop: a story added to the checklist
 * while the agent works (the last iteration included), and an edit of the task's max_iterations.
 * The fake agent marks one story per run and waits at a gate after it starts, so the edit lands
 * while its run is in progress.
 */

interface Ran {
  result: TaskRunResult;
  text: string;
  logs: LogLine[];
}

async function gatedVault(): Promise<{ vault: TestVault; gates: string }> {
  const gates = tempDir('wiggum-gates-');
  const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gates } });
  return { vault, gates };
}

/** Runs the task; `during` acts once run 1 has started and before it may go on; later runs go on at once. */
async function runEditing(
  vault: TestVault,
  gates: string,
  file: string,
  during: () => void,
  overrides: RunOverrides = {},
): Promise<Ran> {
  const { logger, lines } = captureLogger();
  const running = runTask(
    { file, overrides, stream: null, signal: new AbortController().signal },
    runDeps(vault, logger),
  );
  await waitForFile(join(vault.marks, 'run-1'));
  during();
  for (let run = 1; run <= 10; run += 1) writeFileSync(join(gates, `go-${run}`), '');
  const result = await running;
  return { result, text: readFileSync(result.file, 'utf8'), logs: lines };
}

function loopOf(text: string): Record<string, unknown> {
  const parsed = parseTask('t.md', text);
  if (!parsed.ok) throw new Error('the task file does not parse');
  return parsed.task.frontmatter.persistence_loop as Record<string, unknown>;
}

const ONE_STORY = (max: number): string =>
  `---\ntitle: Late\nmax_iterations: ${max}\n---\n# Late\n\n- [ ] S-1 step one\n`;

describe('a story added to the checklist while the agent runs', () => {
  test("refuses that run's completion claim, and the next iteration works on it: Done/ after 2 iterations, the report names it", async () => {
    const { vault, gates } = await gatedVault();
    const file = vault.task('addlate', ONE_STORY(5));
    const ran = await runEditing(vault, gates, file, () => appendFileSync(file, '- [ ] S-2 added late\n'));
    expect(ran.result).toMatchObject({ status: 'done', iterations: 2 });
    expect(loopOf(ran.text)).toMatchObject({ status: 'done', iteration: 2 });
    expect(ran.text).toContain('Stories: 2 of 2 passing (✓ S-1 step one; ✓ S-2 added late)');
    // The first claim was made without S-2: refused, with the reason the next prompt carries.
    expect(
      historyOf(vault.layout.sessions, 'addlate').map((r) => [
        r.iteration,
        r.outcome,
        r.storiesPassing,
        r.storiesTotal,
      ]),
    ).toEqual([
      [1, 'refused', 1, 2],
      [2, 'complete', 2, 2],
    ]);
    expect(readFileSync(join(vault.marks, 'run-2'), 'utf8')).toContain(
      "the user added a story to the task's checklist: S-2 added late",
    );
  });

  test('with no iteration left, the task is rejected with a report naming the story added too late', async () => {
    const { vault, gates } = await gatedVault();
    const file = vault.task('lastonly', ONE_STORY(1));
    const ran = await runEditing(vault, gates, file, () => appendFileSync(file, '- [ ] S-2 added late\n'));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_MAX_ITERATIONS', iterations: 1 });
    expect(ran.result.file).toBe(join(vault.layout.rejected, 'lastonly.md'));
    expect(ran.text).toContain('added too late: S-2 added late was added to the checklist during the last iteration');
    expect(ran.text).toContain('Stories: 1 of 2 passing (✓ S-1 step one; ✗ S-2 added late)');
    expect(loopOf(ran.text)).toMatchObject({ status: 'rejected', iteration: 1, max_iterations: 1 });
  });
});

describe("the task's max_iterations edited while it runs", () => {
  const EIGHT = `---\ntitle: Bounded\nmax_iterations: 8\n---\n# Bounded\n\n${Array.from({ length: 8 }, (_, i) => `- [ ] S-${i + 1} step ${i + 1}\n`).join('')}`;
  const lower = (file: string) => () =>
    writeFileSync(file, readFileSync(file, 'utf8').replace('\nmax_iterations: 8\n', '\nmax_iterations: 3\n'));

  test("takes effect at the next iteration: rejected at 3, the user's line still 3, the log says so", async () => {
    const { vault, gates } = await gatedVault();
    const file = vault.task('mx', EIGHT);
    const ran = await runEditing(vault, gates, file, lower(file));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_MAX_ITERATIONS', iterations: 3 });
    expect(ran.text).toMatch(/^max_iterations: 3$/m);
    expect(loopOf(ran.text)).toMatchObject({ iteration: 3, max_iterations: 3 });
    expect(ran.text).toContain('Used all 3 iterations without completing');
    expect(
      ran.logs.some((line) =>
        line.msg.startsWith('max_iterations in the task file changed from 8 to 3: it takes effect now'),
      ),
    ).toBe(true);
  });

  test('a --max-iterations given for the run wins, and the log says the edit was not applied', async () => {
    const { vault, gates } = await gatedVault();
    const file = vault.task('mx', EIGHT);
    const ran = await runEditing(vault, gates, file, lower(file), { maxIterations: 8 });
    expect(ran.result).toMatchObject({ status: 'done', iterations: 8 });
    expect(loopOf(ran.text)).toMatchObject({ iteration: 8, max_iterations: 8 });
    expect(
      ran.logs.some((line) => line.msg.includes('but --max-iterations 8 was given for this run: not applied')),
    ).toBe(true);
  });
});
