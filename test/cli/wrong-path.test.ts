import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { runCli } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const COMMANDS = [
  ['start'],
  ['status'],
  ['validate'],
  ['stop', 'x'],
  ['resume', 'x'],
  ['retry', 'x'],
  ['context', 'add', 'x', 'hello'],
  ['context', 'clear', 'x'],
].map((command) => [command.join(' '), command] as const);

/** No stack frame: `    at f (file:…)`, `at node:internal…`. */
const STACK_FRAME = /^\s+at .*(\(|node:|file:)/m;

describe('a folder that is not a vault is a usage error that creates nothing', () => {
  test.each(COMMANDS)('%s --vault DIR, and in DIR without --vault', async (_, command) => {
    const notes = tempDir();
    writeFileSync(join(notes, 'notes.md'), 'my notes\n');
    for (const result of [await runCli([...command, '--vault', notes]), await runCli([...command], { cwd: notes })]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `wiggum: ${notes} is not a wiggum vault (it has neither Approved/ nor .wiggum/): wiggum init DIR creates a vault, or pass --vault DIR of an existing one\n`,
      );
      expect(readdirSync(notes)).toEqual(['notes.md']);
    }
  });

  test.each(COMMANDS)('%s --vault /a/typo: exit 2, nothing created, not even the parents', async (_, command) => {
    const base = tempDir();
    const typo = join(base, 'typo', 'vault');
    const result = await runCli([...command, '--vault', typo]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `wiggum: ${typo} does not exist: wiggum init DIR creates a vault, or pass --vault DIR of an existing one\n`,
    );
    expect(readdirSync(base)).toEqual([]);
  });

  test('a folder with only .wiggum/ is a vault', async () => {
    const root = tempDir();
    mkdirSync(join(root, '.wiggum'));
    const result = await runCli(['status', '--vault', root]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Approved 0 · Blocked 0 · Review 0 · Done 0 · Rejected 0');
  });
});

describe('wiggum init', () => {
  test('makes Drafts/ too, and creates a missing parent', async () => {
    const root = join(tempDir(), 'new', 'vault');
    const result = await runCli(['init', root]);
    expect(result.code).toBe(0);
    expect(readdirSync(root).sort()).toEqual([
      '.wiggum',
      'Approved',
      'Blocked',
      'Done',
      'Drafts',
      'Rejected',
      'Review',
    ]);
    expect(result.stdout).toContain('write a task in Drafts/, then move it into Approved/');
    expect(readFileSync(join(root, 'Approved', 'try-wiggum.md'), 'utf8')).toContain('\nharness: demo\n');
  });

  test('--harness NAME writes harness.default: NAME into the new config', async () => {
    const root = join(tempDir(), 'vault');
    expect((await runCli(['init', root, '--harness', 'claude'])).code).toBe(0);
    expect(readFileSync(join(root, '.wiggum', 'config.yaml'), 'utf8')).toMatch(/^harness:\n {2}default: claude {2,}#/m);
    expect((await loadConfig({ vault: root })).harness.defaultName).toBe('claude');
  });

  test('--harness with an unknown name: exit 2, did you mean, nothing created', async () => {
    const base = tempDir();
    const result = await runCli(['init', join(base, 'vault'), '--harness', 'cluade']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^wiggum: --harness cluade: no such harness \(did you mean claude\?\); the configured ones are .*\n$/,
    );
    expect(readdirSync(base)).toEqual([]);
  });

  test('--harness on an existing vault leaves its config alone and says so', async () => {
    const root = tempDir();
    expect((await runCli(['init', root])).code).toBe(0);
    const before = readFileSync(join(root, '.wiggum', 'config.yaml'), 'utf8');
    const again = await runCli(['init', root, '--harness', 'claude']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already exists and was left as it is: set harness.default: claude there yourself');
    expect(readFileSync(join(root, '.wiggum', 'config.yaml'), 'utf8')).toBe(before);
  });

  const unwritable = process.getuid?.() === 0 ? '/sys/wiggum-test-vault' : null;
  test.each([
    [
      'under a file',
      (base: string) => (writeFileSync(join(base, 'afile'), 'x\n'), join(base, 'afile', 'vault')),
      /is a file, not a folder; choose another place/,
    ],
    [
      'in /proc',
      () => `/proc/wiggum-test-${process.pid}`,
      /: (the system does not allow folders here|this place cannot be written to) \(E(NOENT|ACCES|PERM)\)/,
    ],
    [
      'in a folder without write permission',
      (base: string) => {
        if (unwritable !== null) return unwritable;
        mkdirSync(join(base, 'ro'));
        chmodSync(join(base, 'ro'), 0o555);
        return join(base, 'ro', 'vault');
      },
      /this place cannot be written to \(E(ACCES|PERM|ROFS)\)/,
    ],
  ] as const)('%s: exit 2 with one line, no stack trace', async (_, place, message) => {
    const base = tempDir();
    const where = place(base);
    const result = await runCli(['init', where]);
    if (existsSync(join(base, 'ro'))) chmodSync(join(base, 'ro'), 0o755);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(`^wiggum: cannot create a vault at ${where.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.*\n$`),
    );
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(existsSync(where)).toBe(false);
  });
});
