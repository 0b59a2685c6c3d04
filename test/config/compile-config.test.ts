import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { accountOf, compileConfig } from '../../src/config/config.js';
import type { WiggumConfig } from '../../src/config/config.js';
import { mergeLayers } from '../../src/config/layers.js';
import { rawConfigSchema } from '../../src/config/schema.js';
import { parseSafeYaml } from '../../src/yaml/safe-yaml.js';
import { REPO_ROOT } from '../helpers/child.js';

const shipped = parseSafeYaml(readFileSync(join(REPO_ROOT, 'config', 'default.yaml'), 'utf8'));
if (!shipped.ok) throw new Error('config/default.yaml does not parse');
const defaults = shipped.value.data;

/** config/default.yaml with a vault's layer on top, checked and compiled. */
function compiled(layer: Record<string, unknown>, sources = ['default.yaml']): WiggumConfig {
  return compileConfig(rawConfigSchema.parse(mergeLayers([defaults, layer])), sources);
}

describe('compileConfig (the YAML as written → what every component reads)', () => {
  test.each([
    ['an empty dashboard: turns the page off', { vault: { dashboard: '' } }, (c: WiggumConfig) => c.dashboard, null],
    ['a dashboard name is kept', { vault: { dashboard: 'Board.md' } }, (c: WiggumConfig) => c.dashboard, 'Board.md'],
    [
      'an empty harness.default → none: a task naming no harness waits',
      { harness: { default: '' } },
      (c: WiggumConfig) => c.harness.defaultName,
      null,
    ],
    [
      'a harness.default is kept',
      { harness: { default: 'claude' } },
      (c: WiggumConfig) => c.harness.defaultName,
      'claude',
    ],
    [
      "a harness's extra_args come after its args",
      { harnesses: { mine: { kind: 'command', command: 'agent', args: ['--json'], extra_args: ['--model', 'x'] } } },
      // Its sandbox (the vault's, compiled) is compile-sandbox's to test.
      (c: WiggumConfig) => {
        const { sandbox: _sandbox, ...harness } = c.harnesses.mine ?? {};
        return harness;
      },
      { name: 'mine', kind: 'command', command: 'agent', args: ['--json', '--model', 'x'], env: {} },
    ],
    [
      'a check: named by its key, its timeout in ms (10 minutes unless set)',
      { checks: { tests: { command: 'npm', args: ['test'] }, lint: { command: 'eslint', timeout: '90s' } } },
      (c: WiggumConfig) => c.checks,
      {
        tests: { name: 'tests', command: 'npm', args: ['test'], env: {}, timeoutMs: 600_000 },
        lint: { name: 'lint', command: 'eslint', args: [], env: {}, timeoutMs: 90_000 },
      },
    ],
    ['checks: emptied → none', { checks: null }, (c: WiggumConfig) => c.checks, {}],
    [
      'durations in ms',
      { persistence_loop: { timeout: { per_step: '5m', total: '2h', idle: 45 }, usage_limit_max_wait: '6h' } },
      (c: WiggumConfig) => [
        c.loop.perIterationTimeoutMs,
        c.loop.totalTimeoutMs,
        c.loop.idleTimeoutMs,
        c.loop.usageLimitMaxWaitMs,
      ],
      [300_000, 7_200_000, 45_000, 21_600_000],
    ],
    [
      'budgets under their own names, 0 = no limit',
      { persistence_loop: { budget: { max_tokens: 1000, max_cost_usd: 2.5, max_duration: '30m' } } },
      (c: WiggumConfig) => c.loop.budget,
      { maxTokens: 1000, maxCostUsd: 2.5, maxDurationMs: 1_800_000 },
    ],
    [
      'daemon timings in ms',
      { daemon: { failed_retry: '2m', drain_grace: '10s' } },
      (c: WiggumConfig) => [c.daemon.failedRetryMs, c.daemon.drainGraceMs],
      [120_000, 10_000],
    ],
    [
      'git settings under their own names',
      { git: { enabled: false, auto_commit: true } },
      (c: WiggumConfig) => c.git,
      {
        enabled: false,
        autoCommit: true,
        base: null,
        keepWorktree: false,
        maxParallelPerRepo: null,
        land: 'branch',
        landAttempts: 3,
        remote: 'origin',
        pr: {
          command: 'gh',
          args: ['pr', 'create', '--fill', '--head', '{branch}', '--base', '{base}'],
          env: {},
          timeoutMs: 120_000,
        },
      },
    ],
    [
      'worktree settings: a base, kept worktrees, a cap per repository (0 is none)',
      { git: { base: 'main', keep_worktree: true, max_parallel_per_repo: 3 } },
      (c: WiggumConfig) => [c.git.base, c.git.keepWorktree, c.git.maxParallelPerRepo],
      ['main', true, 3],
    ],
    [
      'landing: how, how often a conflict goes back, the remote, a pull-request command with its timeout in ms',
      {
        git: {
          land: 'merge',
          land_attempts: 5,
          remote: 'upstream',
          pr: {
            command: 'glab',
            args: ['mr', 'create', '--source-branch', '{branch}'],
            env: { A: '1' },
            timeout: '30s',
          },
        },
      },
      (c: WiggumConfig) => [c.git.land, c.git.landAttempts, c.git.remote, c.git.pr],
      [
        'merge',
        5,
        'upstream',
        { command: 'glab', args: ['mr', 'create', '--source-branch', '{branch}'], env: { A: '1' }, timeoutMs: 30_000 },
      ],
    ],
    [
      "queue: none by default (the in-process queue), the design's locks in ms",
      {},
      (c: WiggumConfig) => c.queue,
      { url: null, lockDurationMs: 60_000, stalledIntervalMs: 15_000, maxStalled: 5 },
    ],
    [
      'queue: a Redis URL and short locks, as tests use them',
      { queue: { url: 'redis://127.0.0.1:6390/2', lock_duration: '2s', stalled_interval: '1s', max_stalled: 1 } },
      (c: WiggumConfig) => c.queue,
      { url: 'redis://127.0.0.1:6390/2', lockDurationMs: 2000, stalledIntervalMs: 1000, maxStalled: 1 },
    ],
    [
      "a harness's account: kept when named; accountOf falls back to the harness's name",
      {
        harnesses: {
          a: { kind: 'command', command: 'agent', account: 'team-1' },
          b: { kind: 'command', command: 'agent' },
        },
      },
      (c: WiggumConfig) => [
        c.harnesses.a?.account,
        accountOf(c.harnesses.a!),
        c.harnesses.b?.account,
        accountOf(c.harnesses.b!),
      ],
      ['team-1', 'team-1', undefined, 'b'],
    ],
  ] as const)('%s', (_name, layer, read, expected) => {
    expect(read(compiled(layer))).toEqual(expected);
  });

  test('retriable errors: exit codes kept, patterns compiled once, case-insensitive', () => {
    const config = compiled({
      persistence_loop: { retry: { retriable_errors: { exit_codes: [75], patterns: ['try again later'] } } },
    });
    expect(config.loop.retry.retriable.exitCodes).toEqual([75]);
    expect(config.loop.retry.retriable.patterns.map((p) => p.test('Try Again Later'))).toEqual([true]);
  });

  test.each([
    ['a queue URL of another scheme', { queue: { url: 'http://127.0.0.1:6379' } }, 'queue.url must be empty'],
    ['a lock under a second', { queue: { lock_duration: '500ms' } }, 'at least 1s'],
    ['a negative max_stalled', { queue: { max_stalled: -1 } }, 'max_stalled'],
    ['an unknown queue key', { queue: { lock: '5s' } }, 'lock'],
    [
      'an account that is not a name',
      { harnesses: { a: { kind: 'command', command: 'x', account: 'a b' } } },
      'names use',
    ],
  ])('refused: %s', (_name, layer, words) => {
    const checked = rawConfigSchema.safeParse(mergeLayers([defaults, layer]));
    expect(checked.success).toBe(false);
    expect(JSON.stringify(checked.error?.issues)).toContain(words);
  });

  test('the files merged are kept in order, lowest first', () => {
    expect(compiled({}, ['default.yaml', '/v/.wiggum/config.yaml']).sources).toEqual([
      'default.yaml',
      '/v/.wiggum/config.yaml',
    ]);
  });
});
