import { describe, expect, test } from 'vitest';
import { bwrapArgv } from '../../src/sandbox/bwrap-argv.js';
import { confinementName, confinementOf, sandboxStatusOf } from '../../src/sandbox/decision.js';
import { homeFilesOf } from '../../src/sandbox/home-files.js';
import { cgroupMounts, cgroupRoot, limitHit, pidsRefused } from '../../src/sandbox/limits.js';
import { limitsLeftToPrlimit, outerShell, ulimitLine } from '../../src/sandbox/outer-shell.js';
import { mountPlan } from '../../src/sandbox/mount-plan.js';
import type { MountPlanInput } from '../../src/sandbox/mount-plan.js';
import { withoutNestingMarkers } from '../../src/sandbox/environment.js';
import { harnessSandbox, sandboxProblem } from '../../src/config/sandbox-settings.js';
import type { SandboxSettings } from '../../src/config/sandbox-settings.js';
import { movedHomes } from '../../src/sandbox/agent-homes.js';

const base: MountPlanInput = {
  home: '/home/u',
  privateHome: '/v/.wiggum/homes/claude',
  privateTmp: '/v/.wiggum/sandbox/t/1.0/tmp',
  replaced: [],
  vault: '/v',
  repositories: [],
  state: '/v/.wiggum',
  workdir: '/v/.wiggum/worktrees/t',
  memory: ['/v/.wiggum/sandbox/t/memory'],
  tools: ['/usr/bin', '/home/u/.nvm/versions/node/v22/bin', '/v/.wiggum/worktrees/t/node_modules/.bin'],
  homeFiles: [],
  readOnly: [],
  writable: [],
  hidden: [],
  extra: [],
};

describe('mountPlan', () => {
  test.each<[string, Partial<MountPlanInput>, string[]]>([
    [
      'the home replaced, the vault hidden, then the worktree and memory shown again inside it; tools under the home read-only',
      {},
      [
        'rw /v/.wiggum/sandbox/t/1.0/tmp /tmp',
        'hide /v',
        'rw /v/.wiggum/homes/claude /home/u',
        'rw /v/.wiggum/worktrees/t /v/.wiggum/worktrees/t',
        'rw /v/.wiggum/sandbox/t/memory /v/.wiggum/sandbox/t/memory',
        'ro /home/u/.nvm/versions/node/v22/bin /home/u/.nvm/versions/node/v22/bin',
      ],
    ],
    [
      "an agent's folder moved by a variable, even onto the vault: its private folder there, the worktree shown again inside",
      { tools: [], memory: [], replaced: [{ source: '/v/.wiggum/homes/codex.CODEX_HOME', target: '/v' }] },
      [
        'rw /v/.wiggum/sandbox/t/1.0/tmp /tmp',
        'rw /v/.wiggum/homes/codex.CODEX_HOME /v',
        'rw /v/.wiggum/homes/claude /home/u',
        'rw /v/.wiggum/worktrees/t /v/.wiggum/worktrees/t',
      ],
    ],
    [
      'no home: nothing of it to hide, nothing replaces it',
      { home: null, tools: [] },
      [
        'rw /v/.wiggum/sandbox/t/1.0/tmp /tmp',
        'hide /v',
        'rw /v/.wiggum/worktrees/t /v/.wiggum/worktrees/t',
        'rw /v/.wiggum/sandbox/t/memory /v/.wiggum/sandbox/t/memory',
      ],
    ],
    [
      'the repositories hidden (not /); the task’s own workdir among them shown again writable',
      { tools: [], memory: [], repositories: ['/srv/code', '/'], workdir: '/srv/code/app' },
      [
        'rw /v/.wiggum/sandbox/t/1.0/tmp /tmp',
        'hide /v',
        'rw /v/.wiggum/homes/claude /home/u',
        'hide /srv/code',
        'rw /srv/code/app /srv/code/app',
      ],
    ],
    [
      'a folder hidden inside the worktree is hidden after it; one hidden above it before it',
      { tools: [], memory: [], hidden: ['/v/.wiggum/worktrees/t/secrets', '/srv'] },
      [
        'rw /v/.wiggum/sandbox/t/1.0/tmp /tmp',
        'hide /v',
        'hide /srv',
        'rw /v/.wiggum/homes/claude /home/u',
        'rw /v/.wiggum/worktrees/t /v/.wiggum/worktrees/t',
        'hide /v/.wiggum/worktrees/t/secrets',
      ],
    ],
    [
      'a vault that is the repository itself (wiggum ralph): its .wiggum hidden again, the memory shown inside',
      { vault: '/r', state: '/r/.wiggum', workdir: '/r', home: null, privateHome: null, tools: [] },
      [
        'rw /v/.wiggum/sandbox/t/1.0/tmp /tmp',
        'rw /r /r',
        'hide /r/.wiggum',
        'rw /v/.wiggum/sandbox/t/memory /v/.wiggum/sandbox/t/memory',
      ],
    ],
    [
      'a vault inside the repository the task works in: hidden again after the repository',
      { vault: '/r/notes', state: '/r/notes/.wiggum', workdir: '/r', tools: [] },
      [
        'rw /v/.wiggum/sandbox/t/1.0/tmp /tmp',
        'rw /r /r',
        'rw /v/.wiggum/homes/claude /home/u',
        'hide /r/notes',
        'rw /v/.wiggum/sandbox/t/memory /v/.wiggum/sandbox/t/memory',
      ],
    ],
    [
      'a tool folder that is the home or the vault itself (a package.json there, a PATH entry) is not shown again: only what lies under it',
      { tools: ['/home/u', '/home/u/bin', '/v'], memory: [] },
      [
        'rw /v/.wiggum/sandbox/t/1.0/tmp /tmp',
        'hide /v',
        'rw /v/.wiggum/homes/claude /home/u',
        'ro /home/u/bin /home/u/bin',
        'rw /v/.wiggum/worktrees/t /v/.wiggum/worktrees/t',
      ],
    ],
    [
      'extra mounts (git) come after all the rest, in their order; a hidden workdir stays hidden',
      {
        tools: [],
        memory: [],
        hidden: ['/v/.wiggum/worktrees/t'],
        extra: [{ kind: 'ro', source: '/r/.git', target: '/r/.git' }],
      },
      [
        'rw /v/.wiggum/sandbox/t/1.0/tmp /tmp',
        'hide /v',
        'rw /v/.wiggum/homes/claude /home/u',
        'hide /v/.wiggum/worktrees/t',
        'ro /r/.git /r/.git',
      ],
    ],
  ])('%s', (_, over, expected) => {
    const plan = mountPlan({ ...base, ...over });
    expect(plan.map((m) => (m.kind === 'hide' ? `hide ${m.target}` : `${m.kind} ${m.source} ${m.target}`))).toEqual(
      expected,
    );
  });
});

describe('bwrapArgv', () => {
  test('no capabilities, a new PID namespace, dies with its parent, the root read-only, the command after --', () => {
    const line = bwrapArgv({
      bwrap: '/usr/bin/bwrap',
      mounts: [
        { kind: 'hide', target: '/home/u' },
        { kind: 'rw', source: '/w', target: '/w' },
      ],
      cwd: '/w',
      network: 'off',
      command: '--evil',
      args: ['--bind', '/', '/'],
    });
    expect(line.command).toBe('/usr/bin/bwrap');
    expect(line.args).toEqual([
      '--die-with-parent',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--cap-drop',
      'ALL',
      '--unshare-net',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--perms',
      '0700',
      '--tmpfs',
      '/home/u',
      '--bind',
      '/w',
      '/w',
      '--chdir',
      '/w',
      '--',
      '--evil',
      '--bind',
      '/',
      '/',
    ]);
  });
  test('network on shares the namespace; a path that is not absolute is refused', () => {
    expect(bwrapArgv({ bwrap: 'b', mounts: [], cwd: '/w', network: 'on', command: 'c', args: [] }).args).not.toContain(
      '--unshare-net',
    );
    expect(() =>
      bwrapArgv({
        bwrap: 'b',
        mounts: [{ kind: 'hide', target: '-x' }],
        cwd: '/w',
        network: 'on',
        command: 'c',
        args: [],
      }),
    ).toThrow(/absolute/);
  });
});

const settings: SandboxSettings = {
  mode: 'auto',
  required: false,
  network: 'on',
  allow: [],
  readOnly: [],
  writable: [],
  hidden: [],
  homeFiles: [],
  limits: { processes: 100, openFiles: 64, fileSizeBytes: 1024 },
};

describe('confinementOf', () => {
  const bwrap = { kind: 'bwrap', path: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0' } as const;
  const none = { kind: 'none', why: 'bwrap is not on the PATH' } as const;
  test.each<[string, Partial<SandboxSettings>, typeof bwrap | typeof none, string]>([
    ['auto with bubblewrap: confined', {}, bwrap, 'bwrap'],
    ['auto without: unconfined, said', {}, none, 'unconfined'],
    ['off: unconfined by the settings', { mode: 'off' }, bwrap, 'off'],
    ['required without: refused', { required: true }, none, 'refused'],
    ['mode bwrap without: refused', { mode: 'bwrap' }, none, 'refused'],
  ])('%s', (_, over, available, expected) => {
    const confinement = confinementOf({ ...settings, ...over }, available);
    expect(confinement.kind === 'refused' ? 'refused' : confinementName(confinement)).toBe(expected);
  });
  test('status: a warning naming the sandbox when unconfined', () => {
    expect(sandboxStatusOf(settings, none).state).toBe('unconfined');
    expect(sandboxStatusOf(settings, none).text).toMatch(/UNCONFINED.*bubblewrap/);
    expect(sandboxStatusOf({ ...settings, required: true }, none)).toMatchObject({ state: 'unavailable' });
    expect(sandboxStatusOf(settings, bwrap).text).toMatch(/confined \(bubblewrap 0.8.0/);
  });
});

describe('settings', () => {
  test('a harness replaces scalars, adds to lists; required with mode off and network allow are problems', () => {
    const own = harnessSandbox(settings, { mode: 'bwrap', hidden: ['/srv'], limits: { processes: 5 } });
    expect(own).toMatchObject({ mode: 'bwrap', hidden: ['/srv'], limits: { processes: 5, openFiles: 64 } });
    expect(sandboxProblem({ ...settings, mode: 'off', required: true })?.key).toBe('required');
    expect(sandboxProblem({ ...settings, network: 'allow', allow: ['127.0.0.1:8080', 'api.example.com'] })).toBeNull();
    expect(sandboxProblem({ ...settings, network: 'allow', allow: ['ok.example.com', 'http://x/'] })).toEqual({
      key: 'allow',
      message: expect.stringContaining('"http://x/"') as unknown,
    });
    expect(sandboxProblem(settings)).toBeNull();
  });
  test('home files: the agent kind own, then the configured', () => {
    expect(homeFilesOf('codex', [{ path: '.netrc', mode: 'ro' }]).map((f) => f.path)).toEqual([
      '.codex/auth.json',
      '.netrc',
    ]);
    expect(homeFilesOf('claude', []).map((f) => f.path)).toEqual(['.claude/.credentials.json']);
  });
  test('the nesting markers never reach an agent', () => {
    expect(withoutNestingMarkers({ CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli', PATH: '/bin' })).toEqual({
      PATH: '/bin',
    });
  });
});

describe('limits', () => {
  test('mountinfo: the v1 pids hierarchy and cgroup2', () => {
    const info = [
      '35 25 0:30 / /sys/fs/cgroup/pids rw,nosuid - cgroup cgroup rw,pids',
      '30 25 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw',
      '36 25 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory',
    ].join('\n');
    expect(cgroupMounts(info)).toEqual({ pidsV1: '/sys/fs/cgroup/pids', v2: '/sys/fs/cgroup/unified' });
  });
  test.each<[string, Parameters<typeof cgroupRoot>[0], ReturnType<typeof cgroupRoot>]>([
    [
      'v1 pids writable',
      { pidsV1: '/p', v2: '/u', v2Controllers: [], writable: () => true },
      { version: 1, dir: '/p/wiggum' },
    ],
    [
      'cgroup2 with pids',
      { pidsV1: null, v2: '/c', v2Controllers: ['cpu', 'pids'], writable: () => true },
      { version: 2, dir: '/c/wiggum' },
    ],
    ['cgroup2 without pids', { pidsV1: null, v2: '/c', v2Controllers: ['cpu'], writable: () => true }, null],
    ['nothing writable', { pidsV1: '/p', v2: '/c', v2Controllers: ['pids'], writable: () => false }, null],
  ])('%s', (_, facts, expected) => expect(cgroupRoot(facts)).toEqual(expected));
  test.each([
    [
      'open files and file size in 512-byte blocks',
      { processes: 100, openFiles: 64, fileSizeBytes: 1024 },
      'ulimit -n 64 && ulimit -f 2 && ',
    ],
    ['a size under one block is one block', { processes: 0, openFiles: 0, fileSizeBytes: 100 }, 'ulimit -f 1 && '],
    ['no limits: nothing', { processes: 0, openFiles: 0, fileSizeBytes: 0 }, ''],
  ])('ulimitLine: %s', (_, limits, expected) => expect(ulimitLine(limits)).toBe(expected));
  test('prlimit is left only the processes, and only without a cgroup', () => {
    expect(limitsLeftToPrlimit(settings.limits, true)).toEqual([]);
    expect(limitsLeftToPrlimit(settings.limits, false)).toEqual(['--nproc=100:100']);
  });
  test.each([
    [
      'everything: stops ignored, pid handed on, limits, the cgroup joined, then exec',
      { ignoreStops: true, hostPids: '/usr/bin/setpriv', cgroupProcs: '/cg/cgroup.procs' },
      'trap "" TERM INT HUP; export WIGGUM_SANDBOX_HOST_PID=$$; ulimit -n 64 && ulimit -f 2 && echo $$ > "$0" && exec "$@"',
      '/cg/cgroup.procs',
    ],
    [
      'nothing but the limits',
      { ignoreStops: false, hostPids: null, cgroupProcs: null },
      'ulimit -n 64 && ulimit -f 2 && exec "$@"',
      'sh',
    ],
  ])('outerShell: %s', (_, over, script, zero) => {
    const line = outerShell({ ...over, limits: settings.limits }, '/usr/bin/bwrap', ['--x', '$y']);
    expect(line).toEqual({ command: '/bin/sh', args: ['-c', script, zero, '/usr/bin/bwrap', '--x', '$y'] });
  });
  test('a refused fork or SIGXFSZ is a limit hit, whatever the exit', () => {
    expect(pidsRefused('max 3\n')).toBe(3);
    expect(limitHit({ refusedForks: 2, exitCode: 0, signal: null }, settings.limits)).toMatch(/process limit/);
    expect(limitHit({ refusedForks: 0, exitCode: 153, signal: null }, settings.limits)).toMatch(/file size/);
    expect(limitHit({ refusedForks: 0, exitCode: 1, signal: null }, settings.limits)).toBeNull();
  });
});

describe("an agent's own folder moved by a variable", () => {
  test.each([
    ['CODEX_HOME for codex', 'codex', { CODEX_HOME: '/srv/codex' }, ['/srv/codex']],
    ['normalized', 'codex', { CODEX_HOME: '/srv/x/../codex/' }, ['/srv/codex']],
    ['CLAUDE_CONFIG_DIR for claude', 'claude', { CLAUDE_CONFIG_DIR: '/srv/claude' }, ['/srv/claude']],
    ["another kind's variable: none", 'claude', { CODEX_HOME: '/srv/codex' }, []],
    ['relative: none', 'codex', { CODEX_HOME: 'codex' }, []],
    ['the home itself or /: none', 'codex', { CODEX_HOME: '/home/u' }, []],
    ['unset: none', 'codex', {}, []],
  ] as const)('%s', (_name, kind, env, expected) => {
    expect(movedHomes(kind, env, '/home/u').map((moved) => moved.target)).toEqual(expected);
  });
});
