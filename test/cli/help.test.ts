import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/child.js';

const COMMANDS = [
  'validate',
  'run',
  'start',
  'ralph',
  'status',
  'stats',
  'http-token',
  'stop',
  'resume',
  'retry',
  'init',
  'context',
  'context add',
  'context clear',
];

describe('help and version', () => {
  test.each(['--version', '-v', '-V'])('%s prints the package version', async (flag) => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await runCli([flag]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  test.each(['help harness', 'harness'])(
    'wiggum %s prints the command-harness protocol: exit codes and WIGGUM_* variables',
    async (command) => {
      const result = await runCli(command.split(' '));
      expect(result.code).toBe(0);
      for (const text of [
        '75',
        '77, 78',
        'WIGGUM_TASK_FILE',
        'WIGGUM_PRD',
        'WIGGUM_PROMISE',
        'docs/harness-protocol.md',
      ])
        expect(result.stdout).toContain(text);
    },
  );

  test.each(COMMANDS)('%s --help lists its options and the exit codes', async (command) => {
    const result = await runCli([...command.split(' '), '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: wiggum ${command} `));
    expect(result.stdout).toContain('-h, --help');
    expect(result.stdout).toContain(
      'Exit codes: 0 complete, 1 failed or rejected, 2 usage or configuration error, 3 stopped or interrupted.',
    );
  });
});
