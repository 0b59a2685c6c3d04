import { describe, expect, test } from 'vitest';
import {
  compareVersions,
  describeUse,
  doctorExitCode,
  judgeConfig,
  judgeCredentials,
  judgeDisk,
  judgeFolder,
  judgeGit,
  judgeHarness,
  judgeInotify,
  judgeNode,
} from '../../src/doctor/checks.js';
import type { CheckResult, CheckStatus, CredentialFacts, HarnessFacts } from '../../src/doctor/checks.js';
import { formatReport, reportJson } from '../../src/doctor/report.js';

const unused = { tasks: [], isDefault: false };
const byTask = { tasks: ['g.md'], isDefault: false };
const asDefault = { tasks: [], isDefault: true };
const found = { status: 'found', command: 'agent', path: '/bin/agent' } as const;
const missing = { status: 'missing', command: 'agent', searched: 'path' } as const;
const notExecutable = { status: 'not-executable', command: 'agent', path: '/bin/agent' } as const;

/** status and a phrase the line must hold. */
type Expect = [CheckStatus, RegExp];

describe('doctorExitCode', () => {
  const line = (status: CheckStatus): CheckResult => ({ check: 'x', status, message: '', fix: null });
  test.each([
    [[], 0],
    [['ok', 'ok'], 0],
    [['ok', 'warn'], 0],
    [['warn', 'fail'], 1],
    [['fail'], 1],
  ] as [CheckStatus[], number][])('%o → %i', (statuses, code) => {
    expect(doctorExitCode(statuses.map(line))).toBe(code);
  });
});

describe('judgeConfig', () => {
  test('no problems: ok, naming the files merged', () => {
    expect(judgeConfig([], ['/d.yaml', '/v/.wiggum/config.yaml'])).toEqual([
      { check: 'config', status: 'ok', message: 'loads and validates (/d.yaml, /v/.wiggum/config.yaml)', fix: null },
    ]);
  });
  test('each problem is a FAIL line, as validate prints it', () => {
    const lines = judgeConfig(
      ['/v/.wiggum/config.yaml:2:3: daemon.concurrency: Too small', '/v/.wiggum/config.yaml:5:1: unknown key "x"'],
      [],
    );
    expect(lines.map((l) => [l.status, l.message])).toEqual([
      ['fail', '/v/.wiggum/config.yaml:2:3: daemon.concurrency: Too small'],
      ['fail', '/v/.wiggum/config.yaml:5:1: unknown key "x"'],
    ]);
  });
});

describe('describeUse', () => {
  test.each([
    [unused, 'not used by any task in Approved/'],
    [byTask, 'used by 1 task: g.md'],
    [asDefault, 'the default (harness.default)'],
    [
      { tasks: ['a.md', 'b.md', 'c.md', 'd.md'], isDefault: true },
      'used by 4 tasks: a.md, b.md, c.md, …; the default (harness.default)',
    ],
  ])('%o', (use, text) => {
    expect(describeUse(use)).toBe(text);
  });
});

describe('judgeHarness', () => {
  const facts = (over: Partial<HarnessFacts>): HarnessFacts => ({
    name: 'x',
    builtInDemo: false,
    use: unused,
    location: found,
    version: null,
    ...over,
  });
  test.each([
    [
      'found with a version',
      facts({ version: { ok: true, version: 'agent 9.8.7' } }),
      ['ok', /^\/bin\/agent, version agent 9\.8\.7; not used/],
    ],
    [
      'found, version unreadable',
      facts({ version: { ok: false, reason: '--version printed nothing (exit 1)' } }),
      ['warn', /version is unknown: --version printed nothing/],
    ],
    ['the demo agent', facts({ builtInDemo: true, use: asDefault }), ['ok', /built-in demo agent.*the default/]],
    [
      'missing, used by a task',
      facts({ location: missing, use: byTask }),
      ['fail', /^agent is missing \(not found on PATH\); used by 1 task: g\.md$/],
    ],
    ['missing, the default', facts({ location: missing, use: asDefault }), ['fail', /missing.*the default/]],
    ['missing, unused', facts({ location: missing }), ['warn', /missing.*not used by any task/]],
    [
      'not executable, used',
      facts({ location: notExecutable, use: byTask }),
      ['fail', /\/bin\/agent is not executable/],
    ],
  ] as [string, HarnessFacts, Expect][])('%s', (_name, input, [status, message]) => {
    const result = judgeHarness(input);
    expect(result.check).toBe('harness x');
    expect(result.status).toBe(status);
    expect(result.message).toMatch(message);
    if (status !== 'ok') expect(result.fix).toMatch(/harnesses\.x\.command|--version/);
  });
});

describe('judgeCredentials', () => {
  const facts = (over: Partial<CredentialFacts>): CredentialFacts => ({
    harness: 'claude',
    kind: 'claude',
    use: byTask,
    setNames: new Set(),
    allowlist: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'OPENAI_API_KEY'],
    harnessEnvNames: [],
    ...over,
  });
  test.each([
    [
      'claude with an API key',
      facts({ setNames: new Set(['ANTHROPIC_API_KEY']) }),
      ['ok', /^ANTHROPIC_API_KEY set \(needs ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN\)$/],
    ],
    [
      'claude with an OAuth token',
      facts({ setNames: new Set(['CLAUDE_CODE_OAUTH_TOKEN']) }),
      ['ok', /CLAUDE_CODE_OAUTH_TOKEN set/],
    ],
    ['set by the harness env', facts({ harnessEnvNames: ['ANTHROPIC_API_KEY'] }), ['ok', /ANTHROPIC_API_KEY set/]],
    [
      'set but not allowlisted',
      facts({ setNames: new Set(['ANTHROPIC_API_KEY']), allowlist: [] }),
      ['warn', /not in harness\.env_allowlist/],
    ],
    ['none, used: a login may do', facts({}), ['warn', /not set \(it can also sign in with a `claude login`/]],
    ['none, unused', facts({ use: unused }), ['ok', /not set.*not used by any task/]],
    [
      'codex',
      facts({ harness: 'codex', kind: 'codex', use: asDefault }),
      ['warn', /^OPENAI_API_KEY not set.*codex login/],
    ],
    [
      'gemini takes either key',
      facts({ harness: 'g', kind: 'gemini', setNames: new Set(['GOOGLE_API_KEY']), allowlist: ['GOOGLE_API_KEY'] }),
      ['ok', /GOOGLE_API_KEY set \(needs GEMINI_API_KEY or GOOGLE_API_KEY\)/],
    ],
    ['amp', facts({ harness: 'amp', kind: 'amp' }), ['warn', /^AMP_API_KEY not set$/]],
  ] as [string, CredentialFacts, Expect][])('%s', (_name, input, [status, message]) => {
    const result = judgeCredentials(input);
    expect(result?.status).toBe(status);
    expect(result?.message).toMatch(message);
  });
  test.each(['command', 'opencode'] as const)('%s needs no variable of its own', (kind) => {
    expect(judgeCredentials(facts({ kind }))).toBeNull();
  });
});

describe('judgeFolder', () => {
  test.each([
    ['ok', ['ok', /readable and writable/]],
    ['missing', ['warn', /does not exist/]],
    ['not-a-folder', ['fail', /is not a folder/]],
    ['no-access', ['fail', /not readable and writable by this user \(permission denied\)/]],
  ] as const)('%s', (state, [status, message]) => {
    const result = judgeFolder('Done/', '/v/Done', state);
    expect([result.check, result.status]).toEqual(['vault Done/', status]);
    expect(result.message).toMatch(message);
  });
});

describe('judgeInotify', () => {
  test.each([
    [null, 3, ['warn', /cannot read/]],
    [8192, 10, ['ok', /^max_user_watches 8192; the vault needs about 10$/]],
    [8192, 4095, ['ok', /about 4095$/]],
    [8192, 4096, ['warn', /close to the limit/]],
    [8192, 8192, ['fail', /over the limit/]],
  ] as [number | null, number, Expect][])('limit %s, watched %i', (limit, watched, [status, message]) => {
    const result = judgeInotify(limit, watched);
    expect(result.status).toBe(status);
    expect(result.message).toMatch(message);
  });
});

describe('judgeGit', () => {
  const git = { status: 'found', command: 'git', path: '/usr/bin/git' } as const;
  const noGit = { status: 'missing', command: 'git', searched: 'path' } as const;
  test.each([
    [true, git, { ok: true, version: 'git version 2.39.5' }, ['ok', /^\/usr\/bin\/git: git version 2\.39\.5$/]],
    [true, git, { ok: false, reason: 'x' }, ['ok', /version unknown \(x\)/]],
    [true, noGit, null, ['warn', /git is missing/]],
    [false, noGit, null, ['ok', /git\.enabled is false/]],
  ] as const)('enabled %s, %o', (enabled, location, version, [status, message]) => {
    const result = judgeGit(enabled, location, version);
    expect(result.status).toBe(status);
    expect(result.message).toMatch(message);
  });
});

describe('judgeDisk', () => {
  test.each([
    [null, ['warn', /cannot read the free space/]],
    [50 * 1024 ** 3, ['ok', /^50\.0 GB free space on the file system of \/v$/]],
    [512 * 1024 ** 2, ['warn', /512\.0 MB free space.*under 1\.0 GB/]],
    [10 * 1024 ** 2, ['fail', /10\.0 MB free space/]],
  ] as [number | null, Expect][])('%s bytes', (free, [status, message]) => {
    const result = judgeDisk('/v', free);
    expect(result.status).toBe(status);
    expect(result.message).toMatch(message);
  });
});

describe('judgeNode and compareVersions', () => {
  test.each([
    ['20.20.2', '>=20.19.0', ['ok', /^20\.20\.2 \(needs >=20\.19\.0\)$/]],
    ['20.19.0', '>=20.19.0', ['ok', /20\.19\.0/]],
    ['20.9.0', '>=20.19.0', ['fail', /too old/]],
    ['22.1.0', '>= 20', ['ok', /22\.1\.0/]],
    ['20.20.2', '^20 || ^22', ['warn', /cannot read the engines range/]],
  ] as [string, string, Expect][])('%s against %s', (version, range, [status, message]) => {
    const result = judgeNode(version, range);
    expect(result.status).toBe(status);
    expect(result.message).toMatch(message);
  });
  test.each([
    ['v20.9.0', '20.19.0', -1],
    ['20.19', '20.19.0', 0],
    ['21.0.0', '20.99.99', 1],
  ] as const)('%s vs %s', (a, b, sign) => {
    expect(compareVersions(a, b)).toBe(sign);
  });
});

describe('the report', () => {
  const results: CheckResult[] = [
    { check: 'config', status: 'ok', message: 'loads', fix: null },
    { check: 'harness ghost', status: 'fail', message: 'ghost-cmd is missing', fix: 'install it' },
    { check: 'disk', status: 'warn', message: 'low', fix: null },
  ];
  test('one line per check, the fix below a line that needs one, then the verdict', () => {
    expect(formatReport(results)).toBe(
      'ok    config: loads\nFAIL  harness ghost: ghost-cmd is missing\n      fix: install it\nwarn  disk: low\n1 problem to fix before a first run, 1 warning\n',
    );
    expect(formatReport([results[0]!])).toMatch(/\nready: nothing to fix\n$/);
  });
  test('JSON: the vault, ok, and every check', () => {
    expect(JSON.parse(reportJson('/v', results))).toEqual({ vault: '/v', ok: false, checks: results });
  });
});
