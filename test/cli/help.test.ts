import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/child.js';

const COMMANDS = ['validate', 'run', 'start', 'ralph', 'status', 'stop', 'resume', 'retry', 'init', 'context', 'context add', 'context clear'];

describe('help and version', () => {
  test('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  test.each(COMMANDS)('%s --help lists its options and the exit codes', async (command) => {
    const result = await runCli([...command.split(' '), '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: wiggum ${command} `));
    expect(result.stdout).toContain('-h, --help');
    expect(result.stdout).toContain('Exit codes: 0 complete, 1 failed or rejected, 2 usage or configuration error, 3 stopped or interrupted.');
  });
});
