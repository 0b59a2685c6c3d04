import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { missingSecrets } from '../../src/config/notify-secrets.js';
import { formatProblem } from '../../src/problem.js';
import { runCli } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

function vaultWith(yaml: string): string {
  const root = tempDir('wiggum-notify-config-');
  for (const folder of ['Approved', 'Done', 'Rejected', '.wiggum']) mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, '.wiggum', 'config.yaml'), yaml);
  return root;
}

const webhook = (url: string, secret = 'secret_env: HOOK_SECRET'): string =>
  `notify:\n  - kind: webhook\n    url: "${url}"\n    ${secret}\n    events: [done, rejected]\n  - kind: command\n    command: ./notify-me.sh\n    events: [blocked]\n`;

describe('notify: in the configuration', () => {
  test('the list form of the issue: a webhook and a command, compiled with defaults', async () => {
    const root = vaultWith(webhook('https://hooks.example.com/wiggum/tok-SECRET'));
    const checked = await checkConfig({ vault: root });
    if (!checked.ok) throw new Error(checked.problems.map(formatProblem).join('\n'));
    const [hook, command] = checked.config.notify;
    expect(hook).toMatchObject({
      kind: 'webhook',
      url: 'https://hooks.example.com/wiggum/tok-SECRET',
      secretEnv: 'HOOK_SECRET',
      events: ['done', 'rejected'],
      timeoutMs: 10_000,
      retry: { baseDelayMs: 1000, maxDelayMs: 300_000, giveUpAfterMs: 86_400_000 },
      maxPending: 1000,
      label: 'webhook https://hooks.example.com:443/…',
    });
    // A relative command is relative to the config file that names it, as a harness's is.
    expect(command).toMatchObject({
      kind: 'command',
      command: join(root, '.wiggum', 'notify-me.sh'),
      timeoutMs: 30_000,
    });
    expect(hook?.key).toMatch(/^n1-[0-9a-f]{8}$/);
    expect(command?.key).toMatch(/^n2-[0-9a-f]{8}$/);
  });

  test('none by default', async () => {
    const checked = await checkConfig({ vault: vaultWith('') });
    expect(checked.ok && checked.config.notify).toEqual([]);
  });

  test.each([
    [webhook('not a url at all'), /notify\.0\.url: not a URL/],
    [
      webhook('http://example.com/hook/tok-SECRET'),
      /notify\.0\.url: http:\/\/ is allowed only to this machine.*use https:\/\/ for http:\/\/example\.com:80\/…/,
    ],
    [webhook('https://h.example/x', 'secret_bogus: HOOK_SECRET'), /unknown key "secret_bogus"/],
    [webhook('https://h.example/x', 'secret_env: 9bad'), /notify\.0\.secret_env: the name of an environment variable/],
    [webhook('https://h.example/x', ''), /notify\.0\.secret_env: missing/],
    ['notify:\n  - kind: pager\n    events: [done]\n', /kind is webhook or command/],
    ['notify:\n  - kind: command\n    command: x\n    events: [finished]\n', /an event is one of done, rejected/],
    ['notify:\n  - kind: command\n    command: x\n    events: []\n', /name at least one event/],
    [
      'notify:\n  - kind: command\n    command: x\n    events: [done]\n    retry: {base_delay: soon}\n',
      /"soon" is not a duration/,
    ],
  ])('refused: %j', async (yaml, said) => {
    const checked = await checkConfig({ vault: vaultWith(yaml) });
    expect(checked.ok).toBe(false);
    const text = checked.ok ? '' : checked.problems.map(formatProblem).join('\n');
    expect(text).toMatch(said);
    expect(text).not.toContain('tok-SECRET');
  });

  test('a secret variable not set is found, named by its place', async () => {
    const checked = await checkConfig({ vault: vaultWith(webhook('https://h.example/x')) });
    if (!checked.ok) throw new Error('invalid');
    expect(missingSecrets(checked.config.notify, {})).toEqual([
      { index: 0, label: 'webhook https://h.example:443/…', variable: 'HOOK_SECRET' },
    ]);
    expect(missingSecrets(checked.config.notify, { HOOK_SECRET: '' })).toHaveLength(1);
    expect(missingSecrets(checked.config.notify, { HOOK_SECRET: 's' })).toEqual([]);
  });

  test('wiggum validate: a bad URL is a problem, an unset secret a warning naming the variable', async () => {
    const bad = vaultWith(webhook('http://example.com/hook'));
    const refused = await runCli(['validate', '--vault', bad], { env: { ...process.env, HOOK_SECRET: 's' } });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toMatch(/https/);

    const good = vaultWith(webhook('http://127.0.0.1:9/hook'));
    const withSecret = await runCli(['validate', '--vault', good], { env: { ...process.env, HOOK_SECRET: 's' } });
    expect(withSecret.code).toBe(0);
    expect(withSecret.stdout).not.toContain('HOOK_SECRET');
    const env = { ...process.env };
    delete env.HOOK_SECRET;
    const without = await runCli(['validate', '--vault', good], { env });
    expect(without.code).toBe(0);
    expect(without.stdout).toMatch(/warning: notify\.0\.secret_env: the environment variable HOOK_SECRET is not set/);
  });
});
