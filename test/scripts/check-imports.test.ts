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
      names: 'src/vault/read.ts:2 import()s src/cli/main.ts',
    },
    {
      breach: 'a static import that points up the layers',
      changes: { 'harness/spawn.ts': `import { git } from '../git/git.js';\nexport const spawnAgent = () => git;\n` },
      names: 'src/harness/spawn.ts:1 imports src/git/git.ts',
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
      'src/loop/planted.ts:1 imports src/vault/names.ts',
    ],
    [
      'the queue',
      "import { QUEUE_NAME } from '../queue/names.js';\nexport const name = QUEUE_NAME;\n",
      'src/loop/planted.ts:1 imports src/queue/names.ts',
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
    expect(run.stderr).toContain(`${names}: loop may import only what`);
  });
});
