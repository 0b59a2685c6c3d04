import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { checkConfig, loadConfig } from '../../src/config/load.js';
import { isWiggumError } from '../../src/errors.js';
import { REPO_ROOT } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

function vaultWithConfig(yaml: string): string {
  const vault = tempDir();
  mkdirSync(join(vault, '.wiggum'));
  writeFileSync(join(vault, '.wiggum', 'config.yaml'), yaml);
  return vault;
}

describe('the default configuration', () => {
  test('has the values config/default.yaml writes, compiled to milliseconds', async () => {
    const config = await loadConfig();
    expect(config.loop).toMatchObject({
      maxIterations: 100,
      warnThreshold: 0.8,
      retry: { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 16_000, jitter: 0.2 },
      perIterationTimeoutMs: 300_000,
      totalTimeoutMs: 3_600_000,
    });
    expect(config.harness.logMaxBytes).toBe(50_000_000);
    expect(config.harness.tailBytes).toBe(65_536);
    expect(config.daemon.concurrency).toBe(2);
  });

  test('resolves the demo harness relative to the config folder', async () => {
    const config = await loadConfig();
    expect(config.harnesses.demo?.command).toBe(join(REPO_ROOT, 'dist', 'demo', 'agent.js'));
    expect(config.harnesses.claude?.command).toBe('claude');
  });
});

describe('layers', () => {
  test('a built-in harness is extended, not restated: env merges key by key, extra_args are appended to its args', async () => {
    const vault = vaultWithConfig(
      'harnesses:\n  claude:\n    env:\n      CLAUDE_CODE_MAX_RETRIES: "0"\n    extra_args: [--model, sonnet]\n',
    );
    const defaults = (await loadConfig()).harnesses.claude;
    const config = await loadConfig({ vault });
    expect(config.harnesses.claude).toMatchObject({
      kind: 'claude',
      command: 'claude',
      args: [...(defaults?.args ?? []), '--model', 'sonnet'],
    });
    expect(config.harnesses.claude?.env).toEqual({ ...defaults?.env, CLAUDE_CODE_MAX_RETRIES: '0' });
    expect(defaults?.env).toMatchObject({ CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' });
  });

  test('a vault config merges key by key, and --config and flags win over it', async () => {
    const vault = vaultWithConfig(
      'persistence_loop:\n  max_iterations: 7\n  timeout:\n    per_step: 90s\nharnesses:\n  claude:\n    args: [-p]\n',
    );
    const extra = join(tempDir(), 'extra.yaml');
    writeFileSync(extra, 'persistence_loop:\n  max_iterations: 9\n');
    const config = await loadConfig({ vault, file: extra, overrides: { daemon: { concurrency: 5 } } });
    expect(config.loop.maxIterations).toBe(9);
    expect(config.loop.perIterationTimeoutMs).toBe(90_000);
    expect(config.loop.totalTimeoutMs).toBe(3_600_000);
    expect(config.harnesses.claude).toMatchObject({ kind: 'claude', command: 'claude', args: ['-p'] });
    expect(config.daemon.concurrency).toBe(5);
    expect(config.sources).toHaveLength(4);
  });

  test('a relative command in a vault config is relative to that file', async () => {
    const vault = vaultWithConfig('harnesses:\n  mine:\n    kind: command\n    command: ./agents/run.sh\n');
    const config = await loadConfig({ vault });
    expect(config.harnesses.mine?.command).toBe(join(vault, '.wiggum', 'agents', 'run.sh'));
  });
});

describe('problems are positioned in the file that caused them', () => {
  test.each([
    ['persistence_loop:\n  max_iterations: 0\n', '2:19', 'persistence_loop.max_iterations'],
    ['persistence_loop:\n  timeout:\n    per_step: soon\n', '3:15', '"soon" is not a duration'],
    ['daemon:\n  concurrancy: 3\n', '2:16', 'daemon.concurrancy: unknown key "concurrancy"'],
    ['harness:\n  default: nope\n', '2:12', 'no harness named "nope"'],
    ['harnesses:\n  x:\n    kind: shell\n    command: sh\n', '3:11', 'harnesses.x.kind'],
    ['log: [unclosed\n', '2:1', ''],
  ])('%j', async (yaml, position, text) => {
    const vault = vaultWithConfig(yaml);
    const checked = await checkConfig({ vault });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    const problem = checked.problems[0]!;
    expect(problem.file).toBe(join(vault, '.wiggum', 'config.yaml'));
    expect(`${problem.line}:${problem.col}`).toBe(position);
    expect(problem.message).toContain(text);
  });

  test('loadConfig throws E_CONFIG listing the problems', async () => {
    const vault = vaultWithConfig('daemon:\n  concurrency: -1\n');
    const error = await loadConfig({ vault }).catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_CONFIG')).toBe(true);
    expect((error as Error).message).toContain('config.yaml:2:16: daemon.concurrency');
  });

  test('a missing --config file is a problem, a missing vault config is not', async () => {
    const checked = await checkConfig({ vault: tempDir(), file: '/nonexistent/wiggum.yaml' });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problems[0]?.message).toContain('cannot read the config file (ENOENT)');
  });
});
