import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const SECRET = 'sk-doctor-test-SECRET-4711';

const HARNESSES = `harnesses:
  ghost:
    kind: command
    command: wiggum-doctor-missing-cmd
    args: []
  versioned:
    kind: command
    command: versioned-agent
    args: []
`;

/** A vault with the given config and tasks, and a PATH folder holding a real `versioned-agent` that prints 9.8.7. */
function setup(config: string, tasks: Record<string, string>): { vault: string; env: NodeJS.ProcessEnv } {
  const root = tempDir();
  const vault = join(root, 'vault');
  const bin = join(root, 'bin');
  for (const dir of ['Approved', 'Done', 'Rejected', '.wiggum']) mkdirSync(join(vault, dir), { recursive: true });
  mkdirSync(bin);
  writeFileSync(join(vault, '.wiggum', 'config.yaml'), config);
  for (const [name, text] of Object.entries(tasks)) writeFileSync(join(vault, 'Approved', name), text);
  writeFileSync(join(bin, 'versioned-agent'), '#!/bin/sh\necho "versioned-agent 9.8.7-test"\n');
  chmodSync(join(bin, 'versioned-agent'), 0o755);
  // Only what the test means to pass: no API key of the machine the tests run on leaks in.
  return { vault, env: { PATH: `${bin}:/usr/bin:/bin`, HOME: root, ANTHROPIC_API_KEY: SECRET } };
}

const ghostTask = '---\ntitle: g\nharness: ghost\n---\nbody\n';
const versionedTask = '---\ntitle: v\nharness: versioned\n---\nbody\n';

/** The report's line for a check, e.g. `FAIL  harness ghost: …`. */
function lineOf(stdout: string, check: string): string {
  const line = stdout.split('\n').find((candidate) => candidate.slice(6).startsWith(`${check}:`));
  if (line === undefined) throw new Error(`no line for ${check} in:\n${stdout}`);
  return line;
}

describe('wiggum doctor', () => {
  test('a harness a task uses whose command is missing is a FAIL naming it (exit 1); a command on PATH shows its version', async () => {
    const { vault, env } = setup(HARNESSES, { 'g.md': ghostTask });
    const result = await runCli(['doctor'], { cwd: vault, env });
    expect(result.code).toBe(1);
    expect(lineOf(result.stdout, 'harness ghost')).toMatch(
      /^FAIL {2}harness ghost: wiggum-doctor-missing-cmd is missing \(not found on PATH\); used by 1 task: g\.md$/,
    );
    expect(result.stdout).toMatch(/\n {6}fix: install it, or fix harnesses\.ghost\.command in the config\n/);
    expect(lineOf(result.stdout, 'harness versioned')).toMatch(
      /^ok {4}harness versioned: .*\/bin\/versioned-agent, version versioned-agent 9\.8\.7-test; not used by any task/,
    );
    expect(lineOf(result.stdout, 'harness demo')).toMatch(/^ok {4}harness demo: built-in demo agent/);
    for (const check of [
      'config',
      'git',
      'vault Approved/',
      'vault Done/',
      'vault Rejected/',
      'vault .wiggum/',
      'inotify',
      'disk',
      'node',
    ]) {
      expect(lineOf(result.stdout, check)).toMatch(/^(ok|warn|FAIL) /);
    }
    expect(lineOf(result.stdout, 'vault Done/')).toMatch(/readable and writable/);
    expect(result.stdout).toMatch(/\n1 problem to fix before a first run/);
    expect(result.stderr).toBe('');
  });

  test('credential variables are named, whether set or not, and their values never printed', async () => {
    const { vault, env } = setup(HARNESSES, {});
    const result = await runCli(['doctor', '--vault', vault], { env: { ...env, OPENAI_API_KEY: `${SECRET}-openai` } });
    expect(lineOf(result.stdout, 'env claude')).toMatch(/^ok {4}env claude: ANTHROPIC_API_KEY set/);
    expect(lineOf(result.stdout, 'env codex')).toMatch(/OPENAI_API_KEY set/);
    expect(lineOf(result.stdout, 'env gemini')).toMatch(/GEMINI_API_KEY or GOOGLE_API_KEY not set/);
    expect(lineOf(result.stdout, 'env amp')).toMatch(/AMP_API_KEY not set/);
    const json = await runCli(['doctor', '--vault', vault, '--json'], { env });
    for (const output of [result.stdout, result.stderr, json.stdout, json.stderr])
      expect(output).not.toContain('SECRET');
  });

  test('nothing failing is exit 0, warnings included', async () => {
    const { vault, env } = setup(
      `${HARNESSES.replace(/ {2}ghost:\n(?: {4}.*\n)+/, '')}harness:\n  default: versioned\n`,
      { 'v.md': versionedTask, 'd.md': '---\ntitle: d\n---\nbody\n' },
    );
    const result = await runCli(['doctor'], { cwd: vault, env });
    expect(result.stdout).not.toMatch(/^FAIL/m);
    expect(result.code).toBe(0);
    expect(lineOf(result.stdout, 'harness versioned')).toMatch(
      /used by 2 tasks: d\.md, v\.md; the default \(harness\.default\)$/,
    );
    // The built-in agents nobody uses are not installed here: a warning, not a failure.
    expect(lineOf(result.stdout, 'harness codex')).toMatch(/^warn {2}harness codex: codex is missing/);
    expect(result.stdout).toMatch(/\nready: nothing to fix \(\d+ warnings? worth a look\)\n$/);
  });

  test('a config with problems is a FAIL per problem, as validate prints it (exit 1, not a usage error)', async () => {
    const { vault, env } = setup('daemon:\n  concurrency: 0\n', {});
    const result = await runCli(['doctor', '--vault', vault], { env });
    expect(result.code).toBe(1);
    expect(lineOf(result.stdout, 'config')).toMatch(/^FAIL {2}config: .*config\.yaml:2:\d+: daemon\.concurrency: /);
    expect(lineOf(result.stdout, 'harnesses')).toMatch(/not checked: the config has problems/);
    expect(lineOf(result.stdout, 'disk')).toMatch(/free space/);
  });

  test('a file where a vault folder should be is a FAIL', async () => {
    const { vault, env } = setup('', {});
    const done = join(vault, 'Done');
    rmSync(done, { recursive: true });
    writeFileSync(done, 'not a folder');
    const result = await runCli(['doctor', '--vault', vault], { env });
    expect(result.code).toBe(1);
    expect(lineOf(result.stdout, 'vault Done/')).toBe(`FAIL  vault Done/: ${done} is not a folder`);
  });

  test('a folder that is not a vault is a usage error (exit 2) naming wiggum init DIR', async () => {
    const folder = tempDir();
    const result = await runCli(['doctor'], { cwd: folder, env: { PATH: '/usr/bin:/bin' } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/is not a wiggum vault .*wiggum init DIR creates a vault/);
  });

  test('--json: the vault, ok, and one object per check', async () => {
    const { vault, env } = setup(HARNESSES, { 'g.md': ghostTask });
    const result = await runCli(['doctor', '--json'], { cwd: vault, env });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      vault: string;
      ok: boolean;
      checks: { check: string; status: string; message: string; fix: string | null }[];
    };
    expect(report.vault).toBe(vault);
    expect(report.ok).toBe(false);
    for (const check of report.checks) {
      expect(Object.keys(check).sort()).toEqual(['check', 'fix', 'message', 'status']);
      expect(['ok', 'warn', 'fail']).toContain(check.status);
    }
    expect(report.checks.find((check) => check.check === 'harness ghost')).toEqual({
      check: 'harness ghost',
      status: 'fail',
      message: 'wiggum-doctor-missing-cmd is missing (not found on PATH); used by 1 task: g.md',
      fix: 'install it, or fix harnesses.ghost.command in the config',
    });
    expect(report.checks.find((check) => check.check === 'harness versioned')?.message).toContain('9.8.7');
  });

  test('is listed in wiggum --help', async () => {
    const result = await runCli(['--help']);
    expect(result.stdout).toMatch(/^ {2}doctor( |$)/m);
  });
});

describe('wiggum validate, on a task whose harness command is missing here', () => {
  test('warns naming the task, the harness and the command; the exit stays 0', async () => {
    const { vault, env } = setup(HARNESSES, { 'g.md': ghostTask, 'v.md': versionedTask });
    const result = await runCli(['validate'], { cwd: vault, env });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      `${join(vault, 'Approved', 'g.md')}:3:1: warning: the task names harness "ghost", whose command wiggum-doctor-missing-cmd is missing (not found on PATH): install it, or fix harnesses.ghost.command in the config (wiggum doctor checks this machine)`,
      `ok: the configuration and every task in ${vault} are valid (1 warning above)`,
    ]);
  });

  test('a task that runs with a default whose command is missing is warned about too, beside its real problems', async () => {
    const { vault, env } = setup(`${HARNESSES}harness:\n  default: ghost\n`, {
      'd.md': '---\ntitle: d\nverify: tests\n---\nbody\n',
    });
    const result = await runCli(['validate', join(vault, 'Approved', 'd.md')], { cwd: vault, env });
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/d\.md:3:1: verify: unknown check "tests"/);
    expect(result.stdout).toMatch(
      /d\.md:1:1: warning: the task runs with harness\.default "ghost", whose command wiggum-doctor-missing-cmd is missing/,
    );
  });
});
