import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_NAME, SecretMask } from '../secret-mask.js';
import type { WiggumConfig } from './config.js';

/**
 * The values wiggum masks, from the config and wiggum's own environment:
 * - in each harness's environment (the allowlisted variables of `env`, then the harness's `env:`),
 *   every variable named like a credential (`SECRET_NAME`), and those `harness.secret_env` and the
 *   harness's own `secret_env` name; the same for checks and `git.pr`;
 * - each webhook's secret (its `secret_env`), and the credentials of a notifier's URL (user name,
 *   password, and every query value, where tokens usually ride);
 * - `extra`: the HTTP API's token, read by the caller (`httpTokenValue`).
 * WIGGUM_* variables are wiggum's own (paths, ids, the promise) and never counted as credentials.
 */
export function secretValues(config: WiggumConfig, env: NodeJS.ProcessEnv, extra: readonly string[] = []): string[] {
  const values: string[] = [...extra];
  const named = new Set(config.harness.secretEnv);
  const take = (vars: Readonly<Record<string, string | undefined>>, alsoNamed: readonly string[] = []): void => {
    for (const [name, value] of Object.entries(vars)) {
      if (typeof value !== 'string' || name.startsWith('WIGGUM_')) continue;
      if (SECRET_NAME.test(name) || named.has(name) || alsoNamed.includes(name)) values.push(value);
    }
  };
  const allowed: Record<string, string | undefined> = {};
  for (const name of config.harness.envAllowlist) if (Object.hasOwn(env, name)) allowed[name] = env[name];
  take(allowed);
  for (const name of named) if (Object.hasOwn(env, name)) values.push(env[name] ?? '');
  for (const harness of Object.values(config.harnesses)) {
    const own = harness.secretEnv ?? [];
    take(harness.env, own);
    take(allowed, own);
    for (const name of own) if (Object.hasOwn(env, name)) values.push(env[name] ?? '');
  }
  for (const check of Object.values(config.checks)) take(check.env);
  take(config.git.pr.env);
  for (const notifier of config.notify) {
    if (notifier.kind === 'webhook') {
      values.push(env[notifier.secretEnv] ?? '', ...urlCredentials(notifier.url));
    } else take(notifier.env);
  }
  return values;
}

/** The user name, password and query values of a URL: what a webhook URL carries as a credential. */
export function urlCredentials(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const found = [decodeURIComponent(parsed.username), decodeURIComponent(parsed.password)];
  for (const [, value] of parsed.searchParams) found.push(value);
  return found;
}

/** The HTTP API's token in `.wiggum/http-token` (`stateDir`), or none when it has not been made yet. */
export function httpTokenValue(stateDir: string): string[] {
  try {
    const token = readFileSync(join(stateDir, 'http-token'), 'utf8').trim();
    return token === '' ? [] : [token];
  } catch {
    return [];
  }
}

/** The mask of a daemon or a run: `secretValues` with the HTTP token of the vault's state folder. */
export function secretMaskOf(config: WiggumConfig, env: NodeJS.ProcessEnv, stateDir: string | null): SecretMask {
  return new SecretMask(secretValues(config, env, stateDir === null ? [] : httpTokenValue(stateDir)));
}

/**
 * The daemon's mask for its log, kept current with the HTTP token: the API makes the token after
 * the logger exists, and `wiggum http-token --rotate` replaces it while the daemon runs. The token
 * file's change time is looked at on each call (a stat, no read) and the set rebuilt when it moved.
 */
export function liveSecretMask(config: WiggumConfig, env: NodeJS.ProcessEnv, stateDir: string): () => SecretMask {
  let seen = -1;
  let mask = secretMaskOf(config, env, stateDir);
  return () => {
    const changed = statSync(join(stateDir, 'http-token'), { throwIfNoEntry: false })?.ctimeMs ?? 0;
    if (changed !== seen) {
      seen = changed;
      mask = secretMaskOf(config, env, stateDir);
    }
    return mask;
  };
}
