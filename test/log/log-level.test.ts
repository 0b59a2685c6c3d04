import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { makeVault } from '../helpers/vault.js';

describe('--log-level', () => {
  test.each(['start', 'run', 'ralph'])(
    '%s --log-level with an unknown level is a usage error naming the valid levels',
    async (command) => {
      const args =
        command === 'run' ? ['run', 'task.md'] : command === 'ralph' ? ['ralph', 'do it', '--change', 'x'] : ['start'];
      const { code, stderr } = await runCli([...args, '--log-level', 'loud']);
      expect(code).toBe(2);
      expect(stderr).toContain("'--log-level <level>' argument 'loud' is invalid");
      expect(stderr).toContain('trace, debug, info, warn, error, fatal, silent');
    },
  );

  test('a valid level is applied: warn hides the info lines', async () => {
    const vault = await makeVault();
    const { code, stdout } = await runCli(['start', '--vault', vault.root, '--exit-when-idle', '--log-level', 'warn'], {
      env: { ...process.env, JOURNAL_STREAM: '' },
    });
    expect(code).toBe(0);
    expect(stdout).toBe('');
  });
});
