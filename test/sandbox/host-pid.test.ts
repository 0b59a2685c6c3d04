import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { exportHostPid, launchedCommand, LAUNCHER } from '../../src/sandbox/host-pid.js';
import { CLI, REPO_ROOT, outputOf, requireBuild } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { NO_TOTAL_BUDGET, waitForFile } from '../helpers/wait.js';

const AGENT = join(REPO_ROOT, 'test', 'fixtures', 'sandbox', 'pid-agent.sh');

describe('launchedCommand and exportHostPid', () => {
  test.each([
    ['without setpriv the command starts as it is', null, { command: 'c', args: ['a b', '$x'] }],
    [
      'with setpriv the launcher starts it, every word a parameter',
      '/usr/bin/setpriv',
      { command: '/bin/sh', args: ['-c', LAUNCHER, '/usr/bin/setpriv', 'c', 'a b', '$x'] },
    ],
  ])('%s', (_, setpriv, expected) => {
    expect(launchedCommand(setpriv, 'c', ['a b', '$x'])).toEqual(expected);
  });
  test('the outer shell hands its pid on only when there is a launcher', () => {
    expect(exportHostPid(null)).toBe('');
    expect(exportHostPid('/usr/bin/setpriv')).toBe('export WIGGUM_SANDBOX_HOST_PID=$$; ');
  });
});

// As root (here and in CI): only root's launcher can set the namespace's next pid.
describe('a confined agent under its run’s host pid', () => {
  test(
    'its $$ is the pid of the process wiggum started for the run, it has no capability, and the run ends Done',
    async () => {
      requireBuild();
      const dir = tempDir('wiggum-hostpid-');
      const out = join(dir, 'out');
      const vault = join(dir, 'vault');
      mkdirSync(out);
      for (const folder of ['Approved', 'Done', 'Rejected', '.wiggum'])
        mkdirSync(join(vault, folder), { recursive: true });
      writeFileSync(
        join(vault, '.wiggum', 'config.yaml'),
        `harnesses:\n  p:\n    kind: command\n    command: ${AGENT}\n    env:\n      PID_OUT: ${out}\n`,
      );
      writeFileSync(join(vault, 'Approved', 't.md'), '---\ntitle: t\nharness: p\nmax_iterations: 1\n---\n# t\n');
      const wiggum = spawn(process.execPath, [CLI, 'run', join(vault, 'Approved', 't.md'), '--vault', vault]);
      const ended = outputOf(wiggum);
      await waitForFile(join(out, 'pid'), 60_000);
      const pid = readFileSync(join(out, 'pid'), 'utf8').trim();
      // On the host that pid is the run's leader: wiggum's own child, whose command line is the sandbox's.
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      expect(/^PPid:\s*(\d+)$/m.exec(status)?.[1]).toBe(String(wiggum.pid));
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain(AGENT);
      for (const line of readFileSync(join(out, 'caps'), 'utf8').trim().split('\n'))
        expect(line).toMatch(/^Cap\w+:\s*0+$/);
      writeFileSync(join(out, 'go'), '');
      const result = await ended;
      expect(result.code).toBe(0);
      expect(existsSync(join(vault, 'Done', 't.md'))).toBe(true);
      expect(existsSync(`/proc/${pid}`)).toBe(false);
    },
    NO_TOTAL_BUDGET,
  );
});
