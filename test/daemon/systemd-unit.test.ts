import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { durationMs } from '../../src/config/units.js';
import { CLI, REPO_ROOT, requireBuild } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const UNIT = join(REPO_ROOT, 'systemd', 'wiggum.service');
/** The unit's state directory: the paths under it are mapped into a temp folder for the test. */
const STATE_DIRECTORY = '/var/lib/wiggum';
/** What systemd gives a system service as PATH when the unit sets none. */
const SYSTEMD_DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** `[Service]` settings of a unit file: each key with every value it is given, in order. */
function serviceSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header !== null) {
      section = header[1] ?? '';
      continue;
    }
    if (section !== 'Service') continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, eq).trim();
    settings.set(key, [...(settings.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return settings;
}

function only(settings: Map<string, string[]>, key: string): string {
  const values = settings.get(key) ?? [];
  if (values.length !== 1) throw new Error(`the unit sets ${key} ${values.length} times`);
  return values[0]!;
}

describe('systemd/wiggum.service', () => {
  const settings = serviceSettings(readFileSync(UNIT, 'utf8'));

  test("the daemon's drain grace is below the unit's TimeoutStopSec", async () => {
    const config = await loadConfig({ vault: tempDir('wiggum-vault-') });
    expect(config.daemon.drainGraceMs).toBeLessThan(durationMs(only(settings, 'TimeoutStopSec')) ?? 0);
  });

  test("its ExecStart command line, with the unit's environment, runs a task and stops on SIGTERM with exit 0", async () => {
    requireBuild();
    const state = tempDir('wiggum-state-');
    const mapped = (value: string): string => value.split(STATE_DIRECTORY).join(state);
    const [executable, ...args] = only(settings, 'ExecStart').split(/\s+/);
    expect(executable).toBe('/usr/local/bin/wiggum');
    // The unit runs the installed bin directly (its `#!/usr/bin/env node` line finds node on PATH).
    const argv = [CLI, ...args.map(mapped)];
    const vault = argv[argv.indexOf('--vault') + 1]!;
    for (const folder of ['Approved', 'Done', 'Rejected']) mkdirSync(join(vault, folder), { recursive: true });

    const env: Record<string, string> = {};
    for (const assignment of settings.get('Environment') ?? []) {
      const eq = assignment.indexOf('=');
      env[assignment.slice(0, eq)] = mapped(assignment.slice(eq + 1));
    }
    expect(env.HOME).toBe(state);
    // systemd's own PATH; node's folder only if it is not on it (the unit's comments ask for it to be).
    const nodeDir = dirname(process.execPath);
    env.PATH = SYSTEMD_DEFAULT_PATH.split(':').includes(nodeDir)
      ? SYSTEMD_DEFAULT_PATH
      : `${SYSTEMD_DEFAULT_PATH}:${nodeDir}`;
    env.JOURNAL_STREAM = '8:4242';

    const daemon = spawn(argv[0]!, argv.slice(1), {
      cwd: mapped(only(settings, 'WorkingDirectory')),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    daemon.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    daemon.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => daemon.once('exit', (code) => resolve(code)));

    await waitFor(() => stdout.includes('"event":"daemon.started"'), 'the daemon to be ready');
    writeFileSync(
      join(vault, 'Approved', '.unit.md.tmp'),
      '---\ntitle: Under the unit\nharness: demo\ndemo:\n  delay: 10ms\n---\n- [ ] S-1 one\n',
    );
    renameSync(join(vault, 'Approved', '.unit.md.tmp'), join(vault, 'Approved', 'unit.md'));
    await waitFor(() => existsSync(join(vault, 'Done', 'unit.md')), 'the task to reach Done/');

    daemon.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
    const lines = stdout.split('\n').filter((line) => line !== '');
    for (const line of lines) expect(line).toMatch(/^<[2-7]>\{"level":/);
    const records = lines.map((line) => JSON.parse(line.replace(/^<\d>/, '')) as Record<string, unknown>);
    expect(records).toContainEqual(expect.objectContaining({ event: 'task.done', iterations: 1 }));
  });
});
