import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compileConfig } from '../../src/config/config.js';
import { rawConfigSchema } from '../../src/config/schema.js';
import { loadConfig } from '../../src/config/load.js';
import { secretMaskOf, secretValues, urlCredentials } from '../../src/config/secret-values.js';

async function configWith(yaml: string): Promise<Awaited<ReturnType<typeof loadConfig>>> {
  const vault = mkdtempSync(join(tmpdir(), 'wiggum-secrets-'));
  const file = join(vault, 'config.yaml');
  writeFileSync(file, yaml);
  return loadConfig({ vault, file });
}

describe('secretValues', () => {
  test('credential-like names, secret_env (global and per harness), harness env, notifier secrets and URL credentials', async () => {
    const config = await configWith(
      [
        'harness:',
        '  env_allowlist: [PATH, OPENAI_API_KEY, UT_MOTTO, HOOK_SECRET, PLAIN_VALUE]',
        '  secret_env: [UT_MOTTO]',
        'harnesses:',
        '  agent:',
        '    kind: command',
        '    command: /bin/true',
        '    secret_env: [HARNESS_ONLY]',
        '    env: {DEPLOY_TOKEN: dpl_abcdefgh12, HARNESS_ONLY: only-this-harness, WIGGUM_PROMISE_TOKEN: not-a-secret-path}',
        'notify:',
        '  - kind: webhook',
        '    url: "http://127.0.0.1:9/hook?key=query-credential-1"',
        '    secret_env: HOOK_SECRET',
        '    events: [done]',
        '',
      ].join('\n'),
    );
    const env = {
      PATH: '/usr/bin:/bin',
      OPENAI_API_KEY: 'sk-openai-value-1',
      UT_MOTTO: 'tangerine-quartz',
      HOOK_SECRET: 'whsec_hook-value',
      PLAIN_VALUE: 'not-a-secret-at-all',
      NOT_ALLOWED_TOKEN: 'never-reaches-an-agent',
    };
    const values = secretValues(config, env, ['http-token-value']);
    for (const value of [
      'sk-openai-value-1',
      'tangerine-quartz',
      'whsec_hook-value',
      'dpl_abcdefgh12',
      'only-this-harness',
      'query-credential-1',
      'http-token-value',
    ])
      expect(values).toContain(value);
    for (const value of ['/usr/bin:/bin', 'not-a-secret-at-all', 'not-a-secret-path'])
      expect(values).not.toContain(value);
  });

  test('the HTTP token in the state folder is masked', async () => {
    const config = await configWith('');
    const state = mkdtempSync(join(tmpdir(), 'wiggum-state-'));
    writeFileSync(join(state, 'http-token'), 'tok_0123456789abcdef\n');
    expect(secretMaskOf(config, {}, state).text('Bearer tok_0123456789abcdef')).toBe('Bearer [redacted]');
    expect(secretMaskOf(config, {}, join(state, 'none')).empty).toBe(true);
  });

  test('urlCredentials: user, password and query values', () => {
    expect(urlCredentials('https://user:pass@example.com/x?key=abc&b=2').sort()).toEqual(['2', 'abc', 'pass', 'user']);
    expect(urlCredentials('not a url')).toEqual([]);
  });

  test('secret_env is a list of variable names in the schema', () => {
    expect(rawConfigSchema.shape.harness.shape.secret_env.safeParse(['A_B']).success).toBe(true);
    expect(rawConfigSchema.shape.harness.shape.secret_env.safeParse(['not a name']).success).toBe(false);
    expect(typeof compileConfig).toBe('function');
  });
});
