import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { SandboxSettings } from '../../src/config/sandbox-settings.js';
import { sandboxTools } from '../../src/sandbox/availability.js';
import { confineRun } from '../../src/sandbox/confine.js';
import { socketPlace } from '../../src/sandbox/egress-run.js';
import { outputOf, runCli } from '../helpers/child.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { BWRAP_WORKS } from './git-bwrap.js';
import { listener } from '../helpers/listener.js';

const SETTINGS: SandboxSettings = {
  mode: 'bwrap',
  required: true,
  network: 'allow',
  allow: [],
  readOnly: [],
  writable: [],
  hidden: [],
  homeFiles: [],
  limits: { processes: 0, openFiles: 0, fileSizeBytes: 0 },
};

describe.runIf(BWRAP_WORKS)('sandbox.network: allow (real bubblewrap, a kind: command agent)', () => {
  // A long task name puts the run's folder past a unix socket's 107 bytes: the socket moves to the temp dir.
  test.each([
    ['net', 'a short task name'],
    ['a-task-whose-name-is-long-enough-to-push-its-socket-path-past-107-bytes', 'a long task name'],
  ])(
    'the agent reaches the allowed listener through $http_proxy, and the other one neither directly nor so (%s: %s)',
    async (id) => {
      const allowed = await listener('allowed');
      const other = await listener('other');
      const root = tempDir('wiggum-allow-');
      const agent = join(root, 'bin', 'agent.sh');
      mkdirSync(join(root, 'bin'));
      writeFileSync(
        agent,
        [
          '#!/bin/sh',
          'cat > /dev/null',
          `curl -s -m 5 http://127.0.0.1:${allowed.port}/; echo "ATTEMPT proxied rc=$?"`,
          `curl -s -m 5 --noproxy '*' http://127.0.0.1:${allowed.port}/; echo "ATTEMPT direct rc=$?"`,
          `curl -s -m 5 -f http://127.0.0.1:${other.port}/; echo "ATTEMPT other-proxied rc=$?"`,
          `curl -s -m 5 --noproxy '*' http://127.0.0.1:${other.port}/; echo "ATTEMPT other-direct rc=$?"`,
          "echo '<promise>COMPLETE</promise>'",
          '',
        ].join('\n'),
      );
      chmodSync(agent, 0o755);
      const work = join(root, 'work');
      const vault = join(root, 'vault');
      for (const folder of [work, ...['Approved', 'Done', '.wiggum'].map((name) => join(vault, name))])
        mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(vault, '.wiggum', 'config.yaml'),
        [
          `vault:\n  allowed_workdirs: [${work}]`,
          `harnesses:\n  net:\n    kind: command\n    command: ${agent}`,
          `sandbox:\n  network: allow\n  allow: ["127.0.0.1:${allowed.port}"]`,
          '',
        ].join('\n'),
      );
      const task = join(vault, 'Approved', `${id}.md`);
      writeFileSync(task, `---\ntitle: net\nharness: net\nworkdir: ${work}\nmax_iterations: 1\n---\n# net\n`);
      const ran = await runCli(['run', task, '--vault', vault], {
        env: { PATH: process.env['PATH'] ?? '', HOME: join(root, 'home') },
      });
      const output = ran.stdout + ran.stderr;
      const rc = (step: string): string | undefined => new RegExp(`ATTEMPT ${step} rc=(\\d+)`).exec(output)?.[1];
      expect(output).toContain('hello from allowed');
      expect(rc('proxied')).toBe('0');
      expect(rc('direct')).not.toBe('0');
      expect(rc('other-proxied')).not.toBe('0');
      expect(rc('other-direct')).not.toBe('0');
      expect(output).not.toContain('hello from other');
      expect(other.hits()).toBe(0);
      expect(allowed.hits()).toBe(1);
      expect(output).toMatch(/"event":"sandbox.egress-refused"/);
      expect(historyOf(join(vault, '.wiggum', 'sessions'), id)[0]).toMatchObject({ sandbox: 'bwrap' });
    },
  );

  test("a proxy that does not answer ends the run at once with the forwarder's message (125)", async () => {
    const root = tempDir('wiggum-allow-');
    const runDir = join(root, 'state', 'sandbox', 't', '1.0');
    mkdirSync(join(root, 'work'));
    const confined = await confineRun({
      settings: { ...SETTINGS, allow: ['127.0.0.1:9'] },
      tools: await sandboxTools(process.env),
      bwrap: '/usr/bin/bwrap',
      command: '/bin/sh',
      args: ['-c', 'echo agent ran'],
      cwd: join(root, 'work'),
      env: { PATH: process.env['PATH'] ?? '' },
      realHome: join(root, 'home'),
      repositories: [],
      privateHome: join(root, 'state', 'homes', 'h'),
      homeFiles: [],
      derivedFiles: [],
      movedHomes: [],
      runDir,
      vault: join(root, 'state'),
      state: join(root, 'state'),
      memory: [],
      extraMounts: [],
      cgroupName: `allow-test`,
      logger: captureLogger().logger,
    });
    // The proxy's socket gone: what a proxy that died looks like from inside.
    rmSync(join(runDir, 'net', 'proxy.sock'));
    const ran = await outputOf(spawn(confined.command, confined.args, { env: confined.env }));
    await confined.finish({ exitCode: ran.code, signal: null });
    expect(ran.code).toBe(125);
    expect(ran.stdout).not.toContain('agent ran');
    expect(ran.stderr).toContain('egress proxy does not answer');
  });
});

describe('where the proxy socket goes', () => {
  test.each([
    [
      'a short run folder: in it',
      '/v/.wiggum/sandbox/t/1.0',
      '/tmp',
      { kind: 'run', dir: '/v/.wiggum/sandbox/t/1.0/net' },
    ],
    ['past 100 bytes: the temp dir', `/v/${'x'.repeat(90)}/1.0`, '/tmp', { kind: 'temp', prefix: '/tmp/wiggum-net-' }],
    [
      'a long temp dir too: /tmp',
      `/v/${'x'.repeat(90)}/1.0`,
      `/t/${'y'.repeat(70)}`,
      { kind: 'temp', prefix: '/tmp/wiggum-net-' },
    ],
  ])('%s', (_name, runDir, tmp, expected) => {
    expect(socketPlace(runDir, tmp)).toEqual(expected);
  });
});
