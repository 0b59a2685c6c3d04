import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const CHECK = join(REPO_ROOT, 'scripts', 'check-imports.mjs');

/** A small architecture document with the three tables the check reads, as docs/architecture.md has them. */
const ARCHITECTURE = `# Architecture

| folder | concept | notes |
| --- | --- | --- |
| \`cli/\` | commands | |
| \`daemon/\` | the daemon | |
| \`vault/\` | the vault | |
| \`git/\` | git | |
| \`harness/\` | spawning | |
| \`log/\` | logging | |
| \`time/\` | the clock | |
| \`errors.ts\` | errors | |

A table the check must not read as layers:

| file | what happens there |
| --- | --- |
| \`cli/main.ts\` | argv |

| package or effect | only in | why |
| --- | --- | --- |
| \`node:child_process\` | \`harness/\`, \`git/\` | spawning in one place |
| \`chokidar\` | \`vault/file-events.ts\` | one watcher |
| \`pino\` | \`log/\` | one logger |
| \`commander\` | \`cli/\` | argv |
| \`process.exit\` | \`cli/\` | releases run first |

| timer, clock or random | only in | elsewhere use | why |
| --- | --- | --- | --- |
| \`setTimeout\`, \`setInterval\`, \`setImmediate\` | \`time/clock.ts\`, \`cli/\` | \`clock.sleep\` of the injected \`Clock\` | the real clock |
| \`Date.now()\`, \`new Date()\`, \`performance.now()\` | \`time/clock.ts\` | \`clock.now()\` of the injected \`Clock\` | the real clock |
| \`Math.random()\` | \`cli/\` | the injected \`random\` | the entry hands it out |
| \`randomUUID\`, \`randomBytes\` | \`vault/temp-name.ts\` | an injected id maker | temp names |

| short command | module | never loads |
| --- | --- | --- |
| \`status\` | \`cli/status.ts\` | \`yaml\`, \`zod\` |
`;

/**
 * A tree that keeps every rule, with the look-alikes the check must not be fooled by: an
 * \`import()\` and a \`process.exit\` in comments and strings, a type-only import of yaml and a
 * dynamic import of a parsing module from the short command, a dynamic import that points down.
 */
const CLEAN: Record<string, string> = {
  'cli/main.ts': `import { Command } from 'commander';
import { run } from '../daemon/run.js';
export function main(): void {
  new Command();
  process.exit(run());
}
`,
  'cli/status.ts': `import type { Document } from 'yaml';
import { read } from '../vault/read.js';
// A comment is not an import: import('../cli/main.js'), process.exit(1)
export const hint = "import('./main.js') and process.exit(2) in a string";
export async function status(doc?: Document): Promise<string> {
  if (doc !== undefined) return (await import('../vault/parse.js')).parse(read());
  return read();
}
`,
  'daemon/run.ts': `import type { Logger } from '../log/logger.js';
export const run = (logger?: Logger): number => (logger === undefined ? 0 : 1);
export const watcher = () => import('../vault/file-events.js');
`,
  'vault/read.ts': `export const read = (): string => 'task';
`,
  'vault/parse.ts': `import { parse as parseYaml } from 'yaml';
export const parse = (text: string): unknown => parseYaml(text);
`,
  'vault/file-events.ts': `import { watch } from 'chokidar';
export const events = watch;
`,
  'git/git.ts': `import { execFile } from 'node:child_process';
import { spawnAgent } from '../harness/spawn.js';
export const git = [execFile, spawnAgent];
`,
  'harness/spawn.ts': `import { spawn } from 'node:child_process';
import { E } from '../errors.js';
export const spawnAgent = () => (spawn === undefined ? new E() : spawn);
`,
  'log/logger.ts': `import { pino } from 'pino';
export type Logger = ReturnType<typeof pino>;
`,
  'errors.ts': `export class E extends Error {}
`,
  'time/clock.ts': `export const clock = {
  now: (): number => Date.now(),
  sleep: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
};
`,
  'vault/temp-name.ts': `import { randomBytes } from 'node:crypto';
export const tempName = (): string => randomBytes(4).toString('hex');
`,
  'vault/stamp.ts': `// Look-alikes that are not the real clock: Date.now() in a comment, a date from a number,
// a member of an injected object named like a timer.
export const stamp = (nowMs: number, host: { setTimeout: () => void; random: () => number }): string => {
  host.setTimeout();
  const later = { setTimeout: host.random };
  return "Date.now() " + new Date(nowMs).toISOString() + String(later.setTimeout());
};
`,
};

interface Checked {
  code: number | null;
  stderr: string;
}

/** Writes the clean tree with `changes` over it (a null removes a file) and runs the check on it. */
function check(changes: Record<string, string | null> = {}, architecture = ARCHITECTURE): Checked {
  const dir = tempDir('wiggum-check-imports-');
  const src = join(dir, 'src');
  for (const [path, text] of Object.entries({ ...CLEAN, ...changes })) {
    const file = join(src, path);
    if (text === null) {
      rmSync(file, { force: true });
      continue;
    }
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  writeFileSync(join(dir, 'architecture.md'), architecture);
  const run = spawnSync(process.execPath, [CHECK, 'src', 'architecture.md'], { cwd: dir, encoding: 'utf8' });
  return { code: run.status, stderr: run.stderr };
}

describe('check-imports', () => {
  it('passes a tree that keeps every rule, whatever its comments and strings say', () => {
    expect(check()).toEqual({ code: 0, stderr: '' });
  });

  // Each row plants one breach into the clean tree; the check fails and names the file and line.
  const breaches: { breach: string; changes: Record<string, string | null>; names: string }[] = [
    {
      breach: 'an import() that points up the layers',
      changes: {
        'vault/read.ts': `export const read = (): string => 'task';\nexport const up = () => import('../cli/main.js');\n`,
      },
      names: 'src/vault/read.ts:2 import()s ../cli/main.js (src/cli/main.ts): cli/ sits above vault/',
    },
    {
      breach: 'a static import that points up the layers',
      changes: { 'harness/spawn.ts': `import { git } from '../git/git.js';\nexport const spawnAgent = () => git;\n` },
      names: 'src/harness/spawn.ts:1 imports ../git/git.js (src/git/git.ts): git/ sits above harness/',
    },
    {
      breach: 'an import() of a computed path',
      changes: { 'daemon/load.ts': `const name = '../vault/read.js';\nexport const load = () => import(name);\n` },
      names: 'src/daemon/load.ts:2 import() of a computed path',
    },
    {
      breach: 'child_process outside harness/ and git/, without its node: prefix',
      changes: { 'daemon/agent.ts': `import { spawn } from 'child_process';\nexport const agent = spawn;\n` },
      names: 'src/daemon/agent.ts:1 uses node:child_process',
    },
    {
      breach: 'process.exit outside cli/',
      changes: { 'daemon/stop.ts': `export function stop(): void {\n  process.exit(3);\n}\n` },
      names: 'src/daemon/stop.ts:2 uses process.exit',
    },
    {
      breach: "process['exit'] outside cli/",
      changes: { 'daemon/stop.ts': `export const stop = (): never => process['exit'](3);\n` },
      names: 'src/daemon/stop.ts:1 uses process.exit',
    },
    {
      breach: 'exit imported from node:process outside cli/',
      changes: { 'vault/quit.ts': `import { exit as quit } from 'node:process';\nexport const stop = quit;\n` },
      names: 'src/vault/quit.ts:1 uses process.exit',
    },
    {
      breach: 'chokidar in a second file of vault/',
      changes: { 'vault/watch-more.ts': `import { watch } from 'chokidar';\nexport const more = watch;\n` },
      names: 'src/vault/watch-more.ts:1 uses chokidar',
    },
    {
      breach: 'a type-only import of pino outside log/',
      changes: { 'daemon/log-type.ts': `import type { Logger } from 'pino';\nexport type DaemonLogger = Logger;\n` },
      names: 'src/daemon/log-type.ts:1 uses pino',
    },
    {
      breach: 'yaml reached at load time from a short command, two imports away',
      changes: {
        'vault/read.ts': `import { parse } from './parse.js';\nexport const read = (): string => String(parse('a: 1'));\n`,
      },
      names:
        'src/vault/parse.ts:1 imports yaml, loaded by a short command (src/cli/status.ts → src/vault/read.ts → src/vault/parse.ts)',
    },
    {
      breach: 'Date.now() outside the files the time table allows',
      changes: { 'daemon/age.ts': `export const age = (ms: number): number => Date.now() - ms;\n` },
      names:
        'src/daemon/age.ts:1 uses Date.now(), which architecture.md allows only in time/clock.ts: use clock.now() of the injected Clock instead',
    },
    {
      breach: 'new Date() without argument outside the allowed files',
      changes: { 'vault/flag.ts': `export const flag = (): string =>\n  new Date().toISOString();\n` },
      names: 'src/vault/flag.ts:2 uses new Date(), which architecture.md allows only in time/clock.ts',
    },
    {
      breach: 'a global setTimeout called outside the allowed files',
      changes: {
        'git/retry.ts': `export const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));\n`,
      },
      names:
        'src/git/retry.ts:1 uses setTimeout, which architecture.md allows only in time/clock.ts, cli/: use clock.sleep',
    },
    {
      breach: 'globalThis.setInterval outside the allowed files',
      changes: { 'daemon/beat.ts': `export const beat = (f: () => void) => globalThis.setInterval(f, 5);\n` },
      names: 'src/daemon/beat.ts:1 uses setInterval',
    },
    {
      breach: 'setTimeout imported from node:timers/promises outside the allowed files',
      changes: {
        'vault/nap.ts': `import { setTimeout as nap } from 'node:timers/promises';\nexport const later = nap;\n`,
      },
      names: 'src/vault/nap.ts:1 uses setTimeout',
    },
    {
      breach: 'performance.now() outside the allowed files',
      changes: { 'harness/tick.ts': `export const tick = (): number => performance.now();\n` },
      names: 'src/harness/tick.ts:1 uses performance.now()',
    },
    {
      breach: 'Math.random() outside the allowed files',
      changes: { 'daemon/jitter.ts': `export const jitter = (ms: number): number => ms * Math.random();\n` },
      names:
        'src/daemon/jitter.ts:1 uses Math.random(), which architecture.md allows only in cli/: use the injected random instead',
    },
    {
      breach: 'randomUUID imported from node:crypto outside the allowed files',
      changes: { 'daemon/id.ts': `import { randomUUID } from 'crypto';\nexport const newId = randomUUID;\n` },
      names:
        'src/daemon/id.ts:1 uses randomUUID, which architecture.md allows only in vault/temp-name.ts: use an injected id maker instead',
    },
    {
      breach: 'crypto.randomUUID() outside the allowed files',
      changes: { 'daemon/id.ts': `export const newId = (): string => globalThis.crypto.randomUUID();\n` },
      names: 'src/daemon/id.ts:1 uses randomUUID',
    },
    {
      breach: 'an import cycle',
      changes: {
        'vault/a.ts': `import { b } from './b.js';\nexport const a = () => b;\n`,
        'vault/b.ts': `import { a } from './a.js';\nexport const b = () => a;\n`,
      },
      names: 'import cycle:',
    },
    {
      breach: 'a folder the layer table does not list',
      changes: { 'extra/thing.ts': `export const thing = 1;\n` },
      names: 'src/extra/thing.ts: extra is not in the layer table',
    },
    {
      breach: 'a short command module the tree does not hold',
      changes: { 'cli/status.ts': null },
      names: 'names cli/status.ts as a short command',
    },
  ];

  it.each(breaches)('fails on $breach', ({ changes, names }) => {
    const { code, stderr } = check(changes);
    expect(code).toBe(1);
    expect(stderr).toContain(names);
  });

  it('fails on a loop/ module importing vault/ once the table puts loop/ below vault/, naming both', () => {
    const loopBelowVault = ARCHITECTURE.replace(
      '| `vault/` | the vault | |\n',
      '| `vault/` | the vault | |\n| `loop/` | the loop | |\n',
    );
    expect(loopBelowVault).not.toBe(ARCHITECTURE);
    const loop = {
      'loop/run.ts': `import { read } from '../vault/read.js';\nexport const run = (): string => read();\n`,
    };
    const unlisted = check(loop);
    expect(unlisted.code).toBe(1);
    expect(unlisted.stderr).toContain('src/loop/run.ts: loop is not in the layer table');
    const { code, stderr } = check(loop, loopBelowVault);
    expect(code).toBe(1);
    expect(stderr).toContain(
      'src/loop/run.ts:1 imports ../vault/read.js (src/vault/read.ts): vault/ sits above loop/ in the layer table of architecture.md',
    );
    expect(
      check(
        { 'loop/run.ts': `import { E } from '../errors.js';\nexport const run = (): E => new E();\n` },
        loopBelowVault,
      ),
    ).toEqual({
      code: 0,
      stderr: '',
    });
  });

  it('fails on a time-and-chance table naming what the check does not know', () => {
    const unknown = ARCHITECTURE.replace('| `Math.random()` |', '| `Math.random()`, `crypto.getRandomValues` |');
    expect(unknown).not.toBe(ARCHITECTURE);
    const { code, stderr } = check({}, unknown);
    expect(code).toBe(1);
    expect(stderr).toContain('architecture.md names crypto.getRandomValues in its time-and-chance table');
  });

  it('fails when the document lost a table it reads its rules from', () => {
    const withoutPlacement = ARCHITECTURE.replace(/\| package or effect[\s\S]*?\n\n/, '');
    const { code, stderr } = check({}, withoutPlacement);
    expect(code).toBe(1);
    expect(stderr).toContain('no table headed "package or effect"');
  });

  it('passes the repository itself', () => {
    const run = spawnSync(process.execPath, [CHECK, 'src', 'docs/architecture.md'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect({ code: run.status, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  });
  // The loop talks to the place a run lives through its ports (loop/run-host.ts) only: a module of
  // loop/ that reaches into the vault or the queue fails the repository's own table.
  it.each([
    [
      'the vault',
      "import { isTaskFileName } from '../vault/names.js';\nexport const seen = isTaskFileName('a.md');\n",
      'src/loop/planted.ts:1 imports ../vault/names.js (src/vault/names.ts): vault/ sits above loop/',
    ],
    [
      'the queue',
      "import { QUEUE_NAME } from '../queue/names.js';\nexport const name = QUEUE_NAME;\n",
      'src/loop/planted.ts:1 imports ../queue/names.js (src/queue/names.ts): queue/ sits above loop/',
    ],
  ])('fails the repository with a loop module that imports %s', (_what, text, names) => {
    const dir = tempDir('wiggum-layers-');
    cpSync(join(REPO_ROOT, 'src'), join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'loop', 'planted.ts'), text);
    const run = spawnSync(process.execPath, [CHECK, 'src', join(REPO_ROOT, 'docs', 'architecture.md')], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(names);
    expect(run.stderr).toContain('loop/ may import only what it lists below loop/');
  });
});
