import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { describeLocation, locateCommand, readCommandVersion } from '../../src/harness/command-lookup.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A real executable (or, with mode 0o644, a file that is not one) in `dir`. */
function script(dir: string, name: string, body: string, mode = 0o755): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, mode);
  return path;
}

/** Two PATH folders: `first/` and `second/`, plus `cwd/` for relative paths. */
function places(): { root: string; first: string; second: string; cwd: string } {
  const root = tempDir();
  const first = join(root, 'first');
  const second = join(root, 'second');
  const cwd = join(root, 'cwd');
  for (const dir of [first, second, cwd]) mkdirSync(dir);
  return { root, first, second, cwd };
}

type Setup = (p: ReturnType<typeof places>) => { command: string; pathEnv: string };

const cases: [string, Setup, (p: ReturnType<typeof places>) => unknown][] = [
  [
    'a name on PATH',
    (p) => (script(p.second, 'agent', 'exit 0'), { command: 'agent', pathEnv: `${p.first}:${p.second}` }),
    (p) => ({ status: 'found', command: 'agent', path: join(p.second, 'agent') }),
  ],
  [
    'the first executable on PATH wins',
    (p) => (
      script(p.first, 'agent', 'exit 0'),
      script(p.second, 'agent', 'exit 0'),
      { command: 'agent', pathEnv: `${p.first}:${p.second}` }
    ),
    (p) => ({ status: 'found', command: 'agent', path: join(p.first, 'agent') }),
  ],
  [
    'a non-executable file on PATH is skipped for an executable one further on',
    (p) => (
      script(p.first, 'agent', 'exit 0', 0o644),
      script(p.second, 'agent', 'exit 0'),
      { command: 'agent', pathEnv: `${p.first}:${p.second}` }
    ),
    (p) => ({ status: 'found', command: 'agent', path: join(p.second, 'agent') }),
  ],
  [
    'only a non-executable file on PATH',
    (p) => (script(p.first, 'agent', 'exit 0', 0o644), { command: 'agent', pathEnv: `${p.first}:${p.second}` }),
    (p) => ({ status: 'not-executable', command: 'agent', path: join(p.first, 'agent') }),
  ],
  [
    'a name on no PATH folder',
    (p) => ({ command: 'agent', pathEnv: `${p.first}:${p.second}` }),
    () => ({ status: 'missing', command: 'agent', searched: 'path' }),
  ],
  [
    'a folder of that name on PATH is not a command',
    (p) => (mkdirSync(join(p.first, 'agent')), { command: 'agent', pathEnv: p.first }),
    () => ({ status: 'missing', command: 'agent', searched: 'path' }),
  ],
  [
    'an empty PATH',
    () => ({ command: 'agent', pathEnv: '' }),
    () => ({ status: 'missing', command: 'agent', searched: 'path' }),
  ],
  [
    'an empty PATH entry is the working folder',
    (p) => (script(p.cwd, 'agent', 'exit 0'), { command: 'agent', pathEnv: `${p.first}:` }),
    (p) => ({ status: 'found', command: 'agent', path: join(p.cwd, 'agent') }),
  ],
  [
    'an absolute path',
    (p) => ({ command: script(p.root, 'abs', 'exit 0'), pathEnv: '' }),
    (p) => ({ status: 'found', command: join(p.root, 'abs'), path: join(p.root, 'abs') }),
  ],
  [
    'a relative path is taken from the working folder',
    (p) => (script(p.cwd, 'rel', 'exit 0'), { command: './rel', pathEnv: '' }),
    (p) => ({ status: 'found', command: './rel', path: join(p.cwd, 'rel') }),
  ],
  [
    'a path to nothing',
    (p) => ({ command: join(p.root, 'nothing'), pathEnv: p.first }),
    () => ({ status: 'missing', searched: 'file' }),
  ],
  [
    'a path to a non-executable file',
    (p) => ({ command: script(p.root, 'plain', 'exit 0', 0o644), pathEnv: '' }),
    (p) => ({ status: 'not-executable', path: join(p.root, 'plain') }),
  ],
];

describe('locateCommand', () => {
  test.each(cases)('%s', async (_name, setup, expected) => {
    const p = places();
    const { command, pathEnv } = setup(p);
    expect(await locateCommand(command, { pathEnv, cwd: p.cwd })).toMatchObject(expected(p) as object);
  });
});

describe('describeLocation', () => {
  test.each([
    [{ status: 'found', command: 'a', path: '/bin/a' } as const, { ok: true, text: '/bin/a', fix: null }],
    [
      { status: 'missing', command: 'a', searched: 'path' } as const,
      {
        ok: false,
        text: 'a is missing (not found on PATH)',
        fix: 'install it, or fix harnesses.x.command in the config',
      },
    ],
    [
      { status: 'missing', command: '/x/a', searched: 'file' } as const,
      {
        ok: false,
        text: '/x/a is missing (no such file)',
        fix: 'install it, or fix harnesses.x.command in the config',
      },
    ],
    [
      { status: 'not-executable', command: 'a', path: '/x/a' } as const,
      { ok: false, text: '/x/a is not executable', fix: 'chmod +x /x/a, or fix harnesses.x.command in the config' },
    ],
  ])('%o', (location, expected) => {
    expect(describeLocation(location, 'harnesses.x.command')).toEqual(expected);
  });
});

describe('readCommandVersion', () => {
  const versions: [string, string, unknown][] = [
    ['the first line of stdout', 'echo "agent 9.8.7"; echo "more"', { ok: true, version: 'agent 9.8.7' }],
    ['blank lines skipped', 'echo; echo "  v1.2.3  "', { ok: true, version: 'v1.2.3' }],
    ['stderr when stdout is empty', 'echo "tool 2.0" >&2; exit 1', { ok: true, version: 'tool 2.0' }],
    ['the argument it was given', 'echo "asked: $1"', { ok: true, version: 'asked: --version' }],
    ['no output', 'exit 3', { ok: false, reason: '--version printed nothing (exit 3)' }],
    ['stdin is closed, not left open', 'cat; echo "read to the end"', { ok: true, version: 'read to the end' }],
  ];
  test.each(versions)('%s', async (_name, body, expected) => {
    const path = script(tempDir(), 'tool', body);
    expect(await readCommandVersion(path, 60_000)).toEqual(expected);
  });

  test('a command that never answers is killed and said so', async () => {
    const path = script(tempDir(), 'hangs', 'exec sleep 600');
    expect(await readCommandVersion(path, 200)).toEqual({
      ok: false,
      reason: '--version did not answer within 200 ms',
    });
  });

  test('a file that cannot be started', async () => {
    const path = script(tempDir(), 'plain', 'exit 0', 0o644);
    expect(await readCommandVersion(path, 60_000)).toEqual({ ok: false, reason: 'could not be started (EACCES)' });
  });
});
