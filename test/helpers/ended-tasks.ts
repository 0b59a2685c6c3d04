import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeVault } from './vault.js';
import type { TestVault, TestVaultOptions } from './vault.js';

export const HOUR = 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface Ended {
  folder: 'Done' | 'Rejected' | 'Review';
  harness?: string;
  startedMs: number;
  endedMs: number;
  iterations: number;
  spent?: string;
  /** History lines: [attempt, outcome, completionFound, completionAccepted, usage]. */
  runs: [
    number,
    string,
    boolean,
    boolean | undefined,
    { inputTokens: number; outputTokens: number; costUsd?: number }?,
  ][];
}

/** A task file as wiggum leaves it in Done/, Rejected/ or Review/, and its session's history.jsonl. */
export function ended(vault: TestVault, id: string, task: Ended): void {
  const status = task.folder === 'Rejected' ? 'rejected' : task.folder === 'Review' ? 'review' : 'done';
  writeFileSync(
    join(vault.root, task.folder, `${id}.md`),
    [
      '---',
      `title: Task ${id}`,
      ...(task.harness === undefined ? [] : [`harness: ${task.harness}`]),
      `state: ${task.folder}`,
      'persistence_loop:',
      `  status: ${status}`,
      `  session: 0000-${id}`,
      `  started: ${iso(task.startedMs)}`,
      `  updated: ${iso(task.endedMs)}`,
      `  ended: ${iso(task.endedMs)}`,
      `  iteration: ${task.iterations}`,
      '  max_iterations: 10',
      `  exit_reason: ${task.folder === 'Rejected' ? 'max_iterations' : 'completed'}`,
      '  checkpoint:',
      '    completed_steps: []',
      '    current_step: null',
      `    state_data: {attempt: 0, active_ms: 1000, no_progress: 0, usage_waits: 0, warned: false${task.spent === undefined ? '' : `, spent: ${task.spent}`}}`,
      `    timestamp: ${iso(task.endedMs)}`,
      '---',
      `# Task ${id}`,
      '',
      '- [ ] US-001 One',
      '',
    ].join('\n'),
  );
  const dir = join(vault.root, '.wiggum', 'sessions', id);
  mkdirSync(dir, { recursive: true });
  let iteration = 0;
  const lines = task.runs.map(([attempt, outcome, completionFound, completionAccepted, usage]) => {
    if (attempt === 0) iteration += 1;
    return JSON.stringify({
      iteration,
      attempt,
      startedAt: iso(task.startedMs),
      endedAt: iso(task.endedMs),
      durationMs: 1000,
      harness: task.harness ?? 'fake',
      exitCode: 0,
      signal: null,
      outcome,
      completionFound,
      ...(completionAccepted === undefined ? {} : { completionAccepted }),
      storiesPassing: 0,
      storiesTotal: 1,
      ...(usage === undefined ? {} : { usage: { cacheReadTokens: 0, cacheWriteTokens: 0, ...usage } }),
      action: 'continue',
      nextState: 'next iteration',
    });
  });
  writeFileSync(join(dir, 'history.jsonl'), lines.map((line) => `${line}\n`).join(''));
}

/** Three in Done/ (two on claude with tokens and costs, one on the default fake), two in Rejected/, one in Review/, one broken file. */
export async function vaultWithEndings(now: number, options: TestVaultOptions = {}): Promise<TestVault> {
  const vault = await makeVault(options);
  mkdirSync(join(vault.root, 'Review'), { recursive: true });
  ended(vault, 'quick', {
    folder: 'Done',
    harness: 'claude',
    startedMs: now - 2 * HOUR,
    endedMs: now - 2 * HOUR + 10 * 60_000,
    iterations: 2,
    spent: '{input_tokens: 1000, output_tokens: 200, cost_usd: 0.12, agent_ms: 1000, cpu_ms: 10, peak_rss_mb: 50}',
    runs: [
      [0, 'continue', false, undefined, { inputTokens: 500, outputTokens: 100, costUsd: 0.06 }],
      [0, 'complete', true, true, { inputTokens: 500, outputTokens: 100, costUsd: 0.06 }],
    ],
  });
  ended(vault, 'slow', {
    folder: 'Done',
    harness: 'claude',
    startedMs: now - 3 * HOUR,
    endedMs: now - HOUR,
    iterations: 4,
    runs: [
      [0, 'transient', false, undefined, { inputTokens: 100, outputTokens: 50, costUsd: 0.1 }],
      [1, 'continue', false, undefined, { inputTokens: 1000, outputTokens: 500, costUsd: 0.2 }],
      [0, 'usage-limit', false, undefined],
      [0, 'continue', true, false, { inputTokens: 100, outputTokens: 50 }],
      [0, 'complete', true, true, { inputTokens: 100, outputTokens: 50 }],
    ],
  });
  ended(vault, 'old', {
    folder: 'Done',
    startedMs: now - 10 * 24 * HOUR - HOUR,
    endedMs: now - 10 * 24 * HOUR,
    iterations: 1,
    runs: [[0, 'complete', true, true]],
  });
  ended(vault, 'gave-up', {
    folder: 'Rejected',
    harness: 'claude',
    startedMs: now - 5 * HOUR,
    endedMs: now - 4 * HOUR,
    iterations: 10,
    spent: '{input_tokens: 5000, output_tokens: 1000, cost_usd: 1.5, agent_ms: 1000, cpu_ms: 10, peak_rss_mb: 50}',
    runs: [[0, 'continue', true, false]],
  });
  ended(vault, 'broke', {
    folder: 'Rejected',
    startedMs: now - HOUR,
    endedMs: now - HOUR,
    iterations: 1,
    runs: [[0, 'hard', false, undefined]],
  });
  ended(vault, 'to-check', {
    folder: 'Review',
    harness: 'claude',
    startedMs: now - HOUR,
    endedMs: now - 30 * 60_000,
    iterations: 1,
    runs: [[0, 'complete', true, true]],
  });
  // A history with a line that is not JSON: skipped and counted; the rest still read.
  writeFileSync(
    join(vault.root, '.wiggum', 'sessions', 'broke', 'history.jsonl'),
    '{"iteration":1,"attempt":2}\nnot json\n',
  );
  // A task file whose frontmatter does not parse: counted in Rejected/ only.
  writeFileSync(
    join(vault.root, 'Rejected', 'garbled.md'),
    '---\ntitle: Garbled\npersistence_loop: [unclosed\n  : :\n---\nbody\n',
  );
  // Not task files: ignored.
  writeFileSync(join(vault.root, 'Done', 'notes.txt'), 'hello');
  return vault;
}
