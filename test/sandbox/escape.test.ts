import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT, outputOf, runCli } from '../helpers/child.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';

const AGENT = join(REPO_ROOT, 'test', 'fixtures', 'sandbox', 'hostile-agent.sh');
const G = ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false'];

/** A vault, a HOME with a key, and a repository with a committed symlink to that HOME's ~/.ssh. */
function world(sandbox: string): { root: string; home: string; vault: string; repo: string } {
  const root = tempDir('wiggum-sandbox-');
  const home = join(root, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'SECRET-KEY-TEXT\n');
  const repo = join(root, 'code', 'app');
  mkdirSync(repo, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  writeFileSync(join(repo, 'README.md'), '# app\n');
  symlinkSync(join(home, '.ssh'), join(repo, 'keys'));
  execFileSync('git', [...G, '-C', repo, 'add', '-A']);
  execFileSync('git', [...G, '-C', repo, 'commit', '-qm', 'initial']);
  const vault = join(root, 'vault');
  for (const folder of ['Approved', 'Done', 'Rejected', '.wiggum']) mkdirSync(join(vault, folder), { recursive: true });
  writeFileSync(
    join(vault, '.wiggum', 'config.yaml'),
    `vault:\n  allowed_workdirs: [${join(root, 'code')}]\nharnesses:\n  evil:\n    kind: command\n    command: ${AGENT}\n${sandbox}`,
  );
  writeFileSync(
    join(vault, 'Approved', 'esc.md'),
    `---\ntitle: esc\nharness: evil\nworkdir: ${repo}\nmax_iterations: 1\n---\n# esc\n\nDo it.\n`,
  );
  return { root, home, vault, repo };
}

describe('a hostile agent under the default sandbox (wiggum run, bubblewrap on PATH)', () => {
  test('every escape is refused or contained; its legitimate write lands; the history says confined', async () => {
    const w = world('');
    // wiggum itself is the target of the kill and of the environ read: a process of its own here,
    // whose pid the agent is told.
    const victim = spawn('sleep', ['600'], { env: { ...process.env, HOSTILE_SECRET: 'victim-secret' } });
    try {
      const env = {
        PATH: process.env['PATH'] ?? '',
        HOME: w.home,
        CLAUDECODE: '1',
        HOSTILE_HOME: w.home,
        HOSTILE_VAULT: w.vault,
        HOSTILE_PID: String(victim.pid),
      };
      const config = `harness:\n  env_allowlist: [PATH, HOME, HOSTILE_HOME, HOSTILE_VAULT, HOSTILE_PID, CLAUDECODE]\n`;
      writeFileSync(
        join(w.vault, '.wiggum', 'config.yaml'),
        readFileSync(join(w.vault, '.wiggum', 'config.yaml'), 'utf8') + config,
      );
      const ran = await runCli(['run', join(w.vault, 'Approved', 'esc.md'), '--vault', w.vault], { env });
      const output = ran.stdout + ran.stderr;
      const rc = (step: string): string | undefined => new RegExp(`ATTEMPT ${step} rc=(\\d+)`).exec(output)?.[1];
      expect(output).not.toContain('SECRET-KEY-TEXT');
      expect(rc('ssh')).not.toBe('0');
      expect(rc('link')).not.toBe('0');
      expect(existsSync(join(w.home, 'pwned'))).toBe(false);
      expect(rc('vault-write')).not.toBe('0');
      expect(existsSync(join(w.vault, 'Done', 'pwned.md'))).toBe(false);
      expect(rc('task-file')).not.toBe('0');
      expect(readFileSync(join(w.vault, 'Rejected', 'esc.md'), 'utf8')).not.toContain('status: done\n');
      expect(output).not.toContain('victim-secret');
      expect(rc('kill')).not.toBe('0');
      expect(victim.exitCode).toBeNull();
      expect(output).toContain('CLAUDECODE=unset');
      expect(rc('legit')).toBe('0');
      expect(rc('bomb')).not.toBe('0');
      const history = historyOf(join(w.vault, '.wiggum', 'sessions'), 'esc');
      expect(history[0]).toMatchObject({
        sandbox: 'bwrap',
        outcome: 'limit-exceeded',
        error: { code: 'E_SANDBOX_LIMIT' },
      });
      const branch = execFileSync('git', ['-C', w.repo, 'branch', '--list', 'ralph/esc']).toString();
      expect(branch).toContain('ralph/esc');
    } finally {
      victim.kill('SIGKILL');
    }
  });
});

describe("a confined agent and its repository's shared .git", () => {
  test('its commit lands (land: merge); the hooks and fsmonitor it plants are refused and never run', async () => {
    const w = world('');
    const marks = join(w.root, 'marks');
    mkdirSync(marks);
    const agent = join(REPO_ROOT, 'test', 'fixtures', 'sandbox', 'git-hostile-agent.sh');
    const config = join(w.vault, '.wiggum', 'config.yaml');
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace(AGENT, agent) + 'harness:\n  env_allowlist: [PATH, HOME, HOSTILE_MARK]\n',
    );
    const task = join(w.vault, 'Approved', 'esc.md');
    writeFileSync(task, readFileSync(task, 'utf8').replace('max_iterations: 1\n', 'max_iterations: 1\nland: merge\n'));
    const env = { PATH: process.env['PATH'] ?? '', HOME: w.home, HOSTILE_MARK: marks };
    const ran = await runCli(['run', task, '--vault', w.vault], { env });
    const output = ran.stdout + ran.stderr;
    const rc = (step: string): string | undefined => new RegExp(`ATTEMPT ${step} rc=(\\d+)`).exec(output)?.[1];
    expect(rc('commit')).toBe('0');
    expect(rc('hooks')).toBe('1');
    expect(rc('fsmonitor')).not.toBe('0');
    expect(rc('hookspath')).not.toBe('0');
    expect(rc('commondir')).not.toBe('0');
    expect(historyOf(join(w.vault, '.wiggum', 'sessions'), 'esc')[0]).toMatchObject({ sandbox: 'bwrap' });
    expect(existsSync(join(w.vault, 'Done', 'esc.md'))).toBe(true);
    // Done, its confined runs' folder (the memory copies) is gone; the session keeps the memory.
    expect(existsSync(join(w.vault, '.wiggum', 'sandbox', 'esc'))).toBe(false);
    const landed = execFileSync('git', ['-C', w.repo, 'log', '--format=%s', 'main']).toString();
    expect(landed).toContain('the agent work');
    expect(execFileSync('git', ['-C', w.repo, 'show', 'main:work.txt']).toString()).toBe('work\n');
    const planted = spawnSync('git', ['-C', w.repo, 'config', '--get-regexp', 'fsmonitor|hookspath'], {
      encoding: 'utf8',
    });
    expect(planted.stdout).toBe('');
    expect(execFileSync('ls', [marks]).toString()).toBe('');
  });
});

describe("a confined agent in the repository's own checkout (wiggum ralph)", () => {
  test('its commit is made; the hooks, config and commondir it plants are refused or removed, and never run', async () => {
    const w = world('');
    const marks = join(w.root, 'marks');
    mkdirSync(marks);
    const agent = join(REPO_ROOT, 'test', 'fixtures', 'sandbox', 'git-hostile-agent.sh');
    mkdirSync(join(w.repo, '.wiggum'));
    writeFileSync(
      join(w.repo, '.wiggum', 'config.yaml'),
      `harnesses:\n  evil:\n    kind: command\n    command: ${agent}\n    env:\n      HOSTILE_MARK: ${marks}\n`,
    );
    const before = execFileSync('git', ['-C', w.repo, 'rev-parse', 'HEAD']).toString().trim();
    const ran = await runCli(['ralph', 'Do it.', '--change', 'c1', '--harness', 'evil', '--max-iterations', '1'], {
      cwd: w.repo,
      env: { PATH: process.env['PATH'] ?? '', HOME: w.home },
    });
    const output = ran.stdout + ran.stderr;
    const rc = (step: string): string | undefined => new RegExp(`ATTEMPT ${step} rc=(\\d+)`).exec(output)?.[1];
    expect(rc('commit')).toBe('0');
    expect(execFileSync('git', ['-C', w.repo, 'log', '--format=%s', '-1']).toString()).toBe('the agent work\n');
    expect(execFileSync('git', ['-C', w.repo, 'rev-parse', 'HEAD~1']).toString().trim()).toBe(before);
    expect(rc('hooks')).toBe('1');
    expect(rc('fsmonitor')).not.toBe('0');
    expect(rc('hookspath')).not.toBe('0');
    expect(rc('commondir')).toBe('0');
    expect(existsSync(join(w.repo, '.git', 'commondir'))).toBe(false);
    expect(output).toMatch(/"event":"sandbox.git-restored".*commondir/);
    const planted = spawnSync('git', ['-C', w.repo, 'config', '--get-regexp', 'fsmonitor|hookspath'], {
      encoding: 'utf8',
    });
    expect(planted.stdout).toBe('');
    execFileSync('git', ['-C', w.repo, 'status']);
    expect(execFileSync('ls', [marks]).toString()).toBe('evil\n');
  });
});

describe('without bubblewrap on PATH', () => {
  function pathWithoutBwrap(root: string): string {
    const bin = join(root, 'no-bwrap-bin');
    mkdirSync(bin);
    const linked = new Set<string>(['bwrap', '']);
    for (const dir of (process.env['PATH'] ?? '').split(':')) {
      if (!existsSync(dir)) continue;
      for (const name of execFileSync('ls', [dir]).toString().split('\n')) {
        if (linked.has(name)) continue;
        linked.add(name);
        symlinkSync(join(dir, name), join(bin, name));
      }
    }
    return bin;
  }
  test('sandbox.required: the task never runs and waits in Approved/, saying why', async () => {
    const w = world('sandbox:\n  required: true\n');
    const env = { PATH: pathWithoutBwrap(w.root), HOME: w.home };
    const ran = await runCli(['run', join(w.vault, 'Approved', 'esc.md'), '--vault', w.vault], { env });
    expect(ran.code).toBe(2);
    expect(ran.stderr + ran.stdout).toMatch(/bubblewrap/);
    expect(existsSync(join(w.vault, 'Approved', 'esc.md'))).toBe(true);
    expect(existsSync(join(w.repo, '..', '..', 'vault', '.wiggum', 'sessions', 'esc', 'logs', '0001.log'))).toBe(false);
  });
  test('mode auto: the task runs unconfined, with a warning naming the sandbox; doctor warns', async () => {
    const w = world('');
    const env = { PATH: pathWithoutBwrap(w.root), HOME: w.home };
    const ran = await runCli(['run', join(w.vault, 'Approved', 'esc.md'), '--vault', w.vault], { env });
    expect(ran.stdout + ran.stderr).toMatch(/"level":40.*"event":"sandbox.unconfined"/);
    expect(historyOf(join(w.vault, '.wiggum', 'sessions'), 'esc')[0]).toMatchObject({ sandbox: 'unconfined' });
    const doctor = await outputOf(
      spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'doctor', '--vault', w.vault], { env }),
    );
    expect(doctor.stdout).toMatch(/^warn\s+sandbox: agents run UNCONFINED/m);
  });
});
