import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import { runCli } from '../helpers/child.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';

const TASK = '---\ntitle: Three stories\n---\n- [ ] US-001 One\n- [ ] US-002 Two\n- [ ] US-003 Three\n';

function frontmatterOf(file: string): Record<string, unknown> {
  const parsed = parseTask(file, readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(`${file} does not parse`);
  return parsed.task.frontmatter;
}

describe('wiggum init', () => {
  test('scaffolds a valid vault whose sample task runs with the demo agent; a second init changes nothing', async () => {
    const root = join(tempDir(), 'vault');
    const first = await runCli(['init', root]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Approved/try-wiggum.md');
    for (const path of ['Approved', 'Done', 'Rejected', '.wiggum/config.yaml'])
      expect(existsSync(join(root, path))).toBe(true);
    writeFileSync(
      join(root, '.wiggum', 'config.yaml'),
      `${readFileSync(join(root, '.wiggum', 'config.yaml'), 'utf8')}\n# my own line\n`,
    );
    expect((await runCli(['init', root])).stdout).toContain('already a vault');
    expect(readFileSync(join(root, '.wiggum', 'config.yaml'), 'utf8')).toContain('# my own line');
    expect((await runCli(['validate', '--vault', root])).code).toBe(0);
    expect((await runCli(['run', join(root, 'Approved', 'try-wiggum.md'), '--no-stream'])).code).toBe(0);
  });
});

describe('wiggum status without the daemon', () => {
  test('counts per folder and reads the tasks in Approved/: checkpoints and stop flags', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    await runCli(['run', vault.task('finished', TASK), '--no-stream']);
    const paused = vault.task('paused', TASK);
    await runCli(['run', paused, '--max-iterations', '1', '--no-stream']);
    vault.task('waiting', TASK);
    writeFileSync(join(vault.layout.approved, 'waiting.stop'), '');
    vault.task('fresh', TASK);

    const text = await runCli(['status', '--vault', vault.root]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('daemon: not running');
    expect(text.stdout).toContain('Approved 2 · Blocked 0 · Review 0 · Done 1 · Rejected 1');
    expect(text.stdout).toMatch(/queued \(1\): .*\n {2}fresh\n/);
    expect(text.stdout).toMatch(/stopped \(1\): .*\n {2}waiting/);

    const json = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
      counts: Record<string, number>;
      daemon: null;
      tasks: { id: string; state: string }[];
    };
    expect(json.counts).toEqual({ approved: 2, blocked: 0, review: 0, done: 1, rejected: 1 });
    expect(json.daemon).toBeNull();
    expect(json.tasks.map((t) => [t.id, t.state])).toEqual([
      ['fresh', 'queued'],
      ['waiting', 'stopped'],
      ['finished', 'done'],
      ['paused', 'rejected'],
    ]);

    const one = await runCli(['status', 'finished', '--vault', vault.root]);
    expect(one.stdout).toContain('state done, iterations 3 of 100 done');
    expect(one.stdout).toMatch(/\n\s+3\s+0\s+\d+\.\ds\s+yes\s+0\s+complete\s+3\/3/);
  });

  test('a task that names no harness, with no default, waits for its author in every view, as the daemon says it', async () => {
    const vault = await makeVault({ config: { harness: { default: '' } } });
    vault.task('nameless', '---\ntitle: Nameless\n---\n- [ ] US-001 Do it\n');
    const text = await runCli(['status', '--vault', vault.root]);
    expect(text.stdout).toMatch(/needs harness \(1\): .*\n {2}nameless: names no harness/);
    const json = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
      tasks: { id: string; state: string }[];
      states: Record<string, number>;
    };
    expect(json.tasks.map((t) => [t.id, t.state])).toEqual([['nameless', 'needs-harness']]);
    expect(json.states['needs-harness']).toBe(1);
    const one = JSON.parse((await runCli(['status', 'nameless', '--json', '--vault', vault.root])).stdout) as {
      state: string;
      iterations: number;
    };
    expect(one).toMatchObject({ state: 'needs-harness', iterations: 0 });
  });

  test('an unknown id is a usage error (exit 2) saying so', async () => {
    const vault = await makeVault();
    for (const args of [
      ['status', 'ghost'],
      ['stop', 'ghost'],
      ['resume', 'ghost'],
      ['retry', 'ghost'],
      ['context', 'add', 'ghost', 'text'],
    ]) {
      const result = await runCli([...args, '--vault', vault.root]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('task not found: "ghost" is no task\'s id, file name or path in');
    }
    const nowhere = await runCli(['status', '--vault', '/nonexistent/vault', 'ghost']);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('/nonexistent/vault does not exist: wiggum init DIR creates a vault');
  });
});

describe('wiggum retry', () => {
  test('sends a Rejected task back with its memory and fresh budgets; it resumes and finishes', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const file = vault.task('retried', TASK);
    expect((await runCli(['run', file, '--max-iterations', '2', '--no-stream'])).code).toBe(1);
    const retry = await runCli(['retry', 'retried', '--vault', vault.root]);
    expect(retry.code).toBe(0);
    expect(retry.stdout).toContain('Rejected/retried.md → Approved/retried.md');
    const back = join(vault.layout.approved, 'retried.md');
    expect(frontmatterOf(back)).toMatchObject({
      state: 'Approved',
      persistence_loop: { status: 'queued', iteration: 0, checkpoint: { completed_steps: ['US-001', 'US-002'] } },
    });
    expect(readFileSync(back, 'utf8')).toContain('## Failure report');
    expect((await runCli(['run', back, '--no-stream'])).code).toBe(0);
    // The memory carried over: only the one story left took an iteration.
    expect(historyOf(vault.layout.sessions, 'retried').map((r) => r.storiesPassing)).toEqual([1, 2, 3]);
  });

  test('--fresh archives the memory and forgets the checkpoint', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    await runCli(['run', vault.task('again', TASK), '--max-iterations', '1', '--no-stream']);
    const retry = await runCli(['retry', 'again', '--fresh', '--vault', vault.root]);
    expect(retry.stdout).toMatch(/archived to \.wiggum\/archive\/\d{4}-\d{2}-\d{2}-again/);
    expect(frontmatterOf(join(vault.layout.approved, 'again.md')).persistence_loop).toBeUndefined();
    expect(readdirSync(vault.layout.archive)).toHaveLength(1);
    expect(existsSync(join(vault.layout.sessions, 'again'))).toBe(false);
    expect((await runCli(['run', join(vault.layout.approved, 'again.md'), '--no-stream'])).code).toBe(0);
    expect(historyOf(vault.layout.sessions, 'again')).toHaveLength(3);
  });
});

describe('wiggum context', () => {
  test('context added before the first iteration reaches it; cleared, it is gone', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const file = vault.task('guided', TASK);
    const added = await runCli(['context', 'add', 'guided', 'Prefer', 'small', 'commits.', '--vault', vault.root]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('it has not started yet');
    // It waits in the session folder, where the session created at the first run takes it in.
    expect(readdirSync(join(vault.layout.sessions, 'guided'))).toEqual(['context.md']);
    expect(readFileSync(join(vault.layout.sessions, 'guided', 'context.md'), 'utf8')).toMatch(
      /^### Added \d{4}-\d\d-\d\d \d\d:\d\d UTC\n\nPrefer small commits\.\n$/,
    );
    await runCli(['run', file, '--max-iterations', '1', '--no-stream']);
    expect(readFileSync(join(vault.marks, 'run-1'), 'utf8')).toContain(
      '## Additional Context (added by user mid-loop)\n\n### Added',
    );
    expect(readFileSync(join(vault.marks, 'run-1'), 'utf8')).toContain('Prefer small commits.');
    expect((await runCli(['context', 'clear', 'guided', '--vault', vault.root])).stdout).toContain('context cleared');
    expect(readFileSync(join(vault.layout.sessions, 'guided', 'context.md'), 'utf8')).toBe('');
    expect(existsSync(join(vault.layout.sessions, 'guided', 'session.json'))).toBe(true);
    expect(existsSync(vault.layout.archive)).toBe(false);
  });
});

describe('wiggum status ID', () => {
  test('lists the recent iterations with duration, promise, exit, outcome, stories, files and the tokens and cost a harness reported', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const file = vault.task('counted', '---\ntitle: Two\n---\n- [ ] US-001 One\n- [ ] US-002 Two\n');
    expect((await runCli(['run', file, '--no-stream'])).code).toBe(0);
    // As a driver that reads usage (claude, codex) records it.
    const history = join(vault.layout.sessions, 'counted', 'history.jsonl');
    const lines = readFileSync(history, 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    lines[lines.length - 1] = JSON.stringify({
      ...last,
      usage: { inputTokens: 1200, outputTokens: 340, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.0123 },
    });
    writeFileSync(history, `${lines.join('\n')}\n`);

    const text = await runCli(['status', 'counted', '--vault', vault.root]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('state done, iterations 2 of 100 done');
    // The totals come from the checkpoint, written before the line above was edited.
    expect(text.stdout).toMatch(
      /^ {2}spent: no tokens reported · agent time \d+(\.\d)?s( · CPU \d+\.\d s)?( · peak memory \d+ MB)?$/m,
    );
    expect(text.stdout).toMatch(/^ {4}1 {5}0 {4}\d+\.\ds {6}no {7}0 {5}continue {6}1\/2 +— +— +—$/m);
    expect(text.stdout).toMatch(/^ {4}2 {5}0 {4}\d+\.\ds {6}yes {6}0 {5}complete {6}2\/2 +— +1200\/340 +\$0\.0123$/m);

    const json = JSON.parse((await runCli(['status', 'counted', '--json', '--vault', vault.root])).stdout) as {
      recent: Record<string, unknown>[];
    };
    expect(json.recent.at(-1)).toMatchObject({
      iteration: 2,
      completionFound: true,
      exitCode: 0,
      usage: { inputTokens: 1200, outputTokens: 340, costUsd: 0.0123 },
    });
  });
});
