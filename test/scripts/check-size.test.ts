import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const CHECK = join(REPO_ROOT, 'scripts', 'check-size.mjs');

/** A module of `count` lines (as `wc -l` counts them): constants, nothing else. */
const constants = (count: number): string =>
  Array.from({ length: count }, (_, i) => `export const c${i} = ${i};\n`).join('');

/** A function declaration of `count` lines, its first line to its closing brace. */
const functionOf = (name: string, count: number): string =>
  `export function ${name}(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(count - 4)}  return n;\n}\n`;

/** A class whose method has `count` lines. */
const methodOf = (owner: string, name: string, count: number): string =>
  `export class ${owner} {\n  ${name}(): number {\n${'    void 0;\n'.repeat(count - 3)}    return 1;\n  }\n}\n`;

/** A tree within the limits but for two grandfathered entries, held at their sizes by ALLOWED. */
const CLEAN: Record<string, string> = {
  'loop/small.ts': constants(10),
  'loop/edge.ts': constants(300),
  'loop/long-fn.ts': functionOf('edge', 80),
  'daemon/big.ts': constants(320),
  'daemon/runner.ts': methodOf('Runner', 'run', 90),
};

const ALLOWED = { files: { 'daemon/big.ts': 320 }, functions: { 'daemon/runner.ts': { 'Runner.run': 90 } } };

interface Checked {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Writes the clean tree with `changes` over it (a null removes a file) and runs the real check on it. */
function check(changes: Record<string, string | null> = {}, allowed: object = ALLOWED): Checked {
  const dir = tempDir('wiggum-check-size-');
  for (const [path, text] of Object.entries({ ...CLEAN, ...changes })) {
    const file = join(dir, 'src', path);
    if (text === null) {
      rmSync(file, { force: true });
      continue;
    }
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  writeFileSync(join(dir, 'allowed.json'), JSON.stringify(allowed));
  const run = spawnSync(process.execPath, [CHECK, 'src', 'allowed.json'], { cwd: dir, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('check-size', () => {
  it('passes files of 300 lines, functions of 80 and grandfathered entries at their recorded size', () => {
    expect(check()).toMatchObject({ code: 0, stderr: '' });
  });

  const breaches: { breach: string; changes: Record<string, string | null>; allowed?: object; names: string }[] = [
    {
      breach: 'a source file of 301 lines',
      changes: { 'loop/x-planted.ts': constants(301) },
      names: 'src/loop/x-planted.ts: 301 lines, over the limit of 300 lines',
    },
    {
      breach: 'a function of 81 lines',
      changes: { 'loop/long-fn.ts': `// one line before it\n${functionOf('tooLong', 81)}` },
      names: 'src/loop/long-fn.ts:2 function tooLong has 81 lines, over the limit of 80 lines',
    },
    {
      breach: 'an arrow function of 81 lines, named by its variable',
      changes: {
        'loop/arrow.ts': `export const step = (): number => {\n${'  void 0;\n'.repeat(78)}  return 1;\n};\n`,
      },
      names: 'src/loop/arrow.ts:1 function step has 81 lines',
    },
    {
      breach: 'an allow-listed file that grew by one line',
      changes: { 'daemon/big.ts': constants(321) },
      names: 'src/daemon/big.ts: 321 lines, grown past the 320 allowed.json allows it',
    },
    {
      breach: 'an allow-listed function that grew by one line',
      changes: { 'daemon/runner.ts': methodOf('Runner', 'run', 91) },
      names: 'src/daemon/runner.ts:2 function Runner.run: 91 lines, grown past the 90 allowed.json allows it',
    },
    {
      breach: 'an allow-listed file cut to the limit, its entry still there',
      changes: { 'daemon/big.ts': constants(300) },
      names:
        'src/daemon/big.ts: 300 lines, within the limit of 300 now: remove its entry "daemon/big.ts" from allowed.json',
    },
    {
      breach: 'an allow-listed function cut to the limit, its entry still there',
      changes: { 'daemon/runner.ts': methodOf('Runner', 'run', 80) },
      names: 'function Runner.run: 80 lines, within the limit of 80 now: remove its entry "Runner.run"',
    },
    {
      breach: 'an allow-listed file that is gone',
      changes: { 'daemon/big.ts': null },
      names: 'allowed.json lists daemon/big.ts, which is gone from src: remove its entry',
    },
    {
      breach: 'an allow-listed function that was renamed',
      changes: { 'daemon/runner.ts': methodOf('Runner', 'runAll', 90) },
      names: 'allowed.json lists function Runner.run of daemon/runner.ts, which is gone: remove its entry',
    },
  ];

  it.each(breaches)('fails on $breach, and names it', ({ changes, names }) => {
    const { code, stderr } = check(changes);
    expect(code).toBe(1);
    expect(stderr).toContain(names);
  });

  it('counts lines as wc -l does: blank lines and comments count', () => {
    const padded = `${'\n'.repeat(150)}${'// a comment\n'.repeat(150)}export const last = 1;\n`;
    const { code, stderr } = check({ 'loop/padded.ts': padded });
    expect(code).toBe(1);
    expect(stderr).toContain('src/loop/padded.ts: 301 lines');
  });

  it('lets an allow-listed file shrink while it is still over the limit, and says to lower its entry', () => {
    const { code, stdout } = check({ 'daemon/big.ts': constants(310) });
    expect(code).toBe(0);
    expect(stdout).toContain('src/daemon/big.ts: 310 lines, down from 320: lower its entry in allowed.json');
  });

  it('fails on an allow-list it cannot read', () => {
    const dir = tempDir('wiggum-check-size-');
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'allowed.json'), '{ not json');
    const run = spawnSync(process.execPath, [CHECK, 'src', 'allowed.json'], { cwd: dir, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('allowed.json: cannot be read as JSON');
  });

  it('passes the repository itself, with its allow-list', () => {
    const run = spawnSync(process.execPath, [CHECK, 'src', 'scripts/size-allowlist.json'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect({ code: run.status, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  });
});
