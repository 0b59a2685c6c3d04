import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../helpers/child.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { BWRAP_WORKS } from '../sandbox/git-bwrap.js';

/**
 * The package as a user gets it: `npm pack` in a copy of the project without dist/ (prepack builds
 * it), `npm install -g --prefix` of the tarball, and the installed `wiggum` run from outside the
 * project with a PATH of the prefix, node and the system only. The copy keeps the build of the
 * project's own dist/, which other test files run, out of the way.
 */
const run = promisify(execFile);
const PACKED = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'README.md',
  'LICENSE',
  'src',
  'scripts',
  'config',
  'systemd',
  'docs',
];
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The environment of the npm commands: the test's, without what would redirect a global install. */
function npmEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^npm_config_(prefix|global|location)$/i.test(name)) delete env[name];
  return env;
}

interface PackedFile {
  path: string;
}

describe('the packed package', () => {
  test('packs in a copy without dist/, installs into a prefix, and the installed wiggum runs a task to Done/', async () => {
    const work = tempDir('wiggum-pack-');
    const project = join(work, 'project');
    for (const entry of PACKED) cpSync(join(REPO_ROOT, entry), join(project, entry), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(project, 'node_modules'));
    expect(existsSync(join(project, 'dist'))).toBe(false);

    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: project,
      env: npmEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
      filename: string;
      files: PackedFile[];
    }[];
    const files = info?.files.map((file) => file.path) ?? [];
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'dist/cli/main.js',
        'dist/demo/agent.js',
        'config/default.yaml',
        'docs/harness-protocol.md',
        'systemd/wiggum.service',
      ]),
    );
    expect(
      files.filter((file) => file.endsWith('.map') || file.startsWith('src/') || file.startsWith('test/')),
    ).toEqual([]);

    const prefix = join(work, 'prefix');
    await run(
      'npm',
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        join(work, info?.filename ?? 'missing.tgz'),
      ],
      { cwd: work, env: npmEnv() },
    );
    const bin = join(prefix, 'bin', 'wiggum');
    expect(realpathSync(bin).startsWith(realpathSync(prefix))).toBe(true);

    const outside = join(work, 'outside');
    mkdirSync(outside);
    const env = { PATH: [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'), HOME: work };
    const wiggum = (args: string[], cwd = outside): Promise<{ stdout: string; stderr: string }> =>
      run(bin, args, { cwd, env });

    expect((await wiggum(['--version'])).stdout.trim()).toBe(VERSION);
    expect((await wiggum(['-v'])).stdout.trim()).toBe(VERSION);
    const help = (await wiggum(['--help'])).stdout;
    for (const command of ['init', 'start', 'run', 'doctor']) expect(help).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect((await wiggum(['help', 'harness'])).stdout).toContain('WIGGUM_PROMISE');

    const vault = join(work, 'vault');
    await wiggum(['init', vault]);
    await wiggum(['validate', '--vault', vault]);
    // run() rejects on a non-zero exit: doctor finds nothing to fix in a fresh vault (warnings aside).
    expect((await wiggum(['doctor', '--vault', vault])).stdout).toMatch(/^ok {4}harness demo: /m);
    const sample = readdirSync(join(vault, 'Approved')).find((name) => name.endsWith('.md'));
    expect(sample).toBeDefined();
    await wiggum(['run', join('Approved', sample ?? ''), '--no-stream'], vault);
    expect(existsSync(join(vault, 'Done', sample ?? ''))).toBe(true);
    // Confined where bubblewrap works, the demo agent installed under the home (hidden from it)
    // still has its whole package: its own modules and its dependencies.
    const history = historyOf(join(vault, '.wiggum', 'sessions'), (sample ?? '').slice(0, -3));
    expect(history.length).toBeGreaterThan(0);
    expect(new Set(history.map((record) => record.sandbox))).toEqual(new Set([BWRAP_WORKS ? 'bwrap' : 'unconfined']));
  });
});
