import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { makeVault } from '../helpers/vault.js';

/** A named pipe called like a task: opening it to read would wait for a writer forever. */
describe('a named pipe in Approved/', () => {
  test('validate names it, run refuses it with exit 2, and neither waits on it or moves it', async () => {
    const vault = await makeVault();
    const pipe = join(vault.layout.approved, 'pipe.md');
    execFileSync('mkfifo', [pipe]);
    const validate = await runCli(['validate', '--vault', vault.root]);
    expect(validate.code).toBe(2);
    expect(validate.stdout + validate.stderr).toContain('pipe.md:1:1: not a regular file');
    const run = await runCli(['run', pipe, '--no-stream']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'is not a regular file (a folder, pipe or device), so it is not a task; wiggum leaves it alone',
    );
    expect(lstatSync(pipe).isFIFO()).toBe(true);
    expect(existsSync(join(vault.layout.rejected, 'pipe.md'))).toBe(false);
  });
});
