import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { HarnessKind } from '../config/schema.js';
import { isUnder } from './mount-plan.js';

/**
 * The variables by which a person points a built-in agent's own folder elsewhere (its config,
 * logins and sessions): the agent must write there, as it writes its private home.
 */
export const AGENT_HOME_VARIABLES: Partial<Record<HarnessKind, readonly string[]>> = {
  claude: ['CLAUDE_CONFIG_DIR'],
  codex: ['CODEX_HOME'],
};

/** What of the home is never given, whatever a variable names (docs/sandbox.md "What is protected"). */
const NEVER_GIVEN_IN_HOME = ['.ssh', '.aws', '.gnupg', '.config/gh', '.netrc', '.docker', '.kube'];

export interface GivenPlacesInput {
  /** The harness's `env:` as the person configured it (never the task's). */
  configuredEnv: Readonly<Record<string, string>>;
  /** The environment that reaches the agent (allow-listed), for its home variables. */
  agentEnv: Readonly<Record<string, string>>;
  homeVariables: readonly string[];
  home: string | null;
  vault: string;
  state: string;
}

/**
 * Pure: the places a person gave an agent by naming them for its harness: every absolute path in
 * the harness's configured `env:` (a folder its program writes, e.g. a log or a channel), and the
 * agent's own folder when a home variable moves it (CODEX_HOME). Shown writable. Never given,
 * whatever names it: `/`, the home or a folder above it, the vault or anything in or above it,
 * wiggum's folder, and the home's secrets (~/.ssh, ~/.aws, …).
 */
export function givenPlaces(input: GivenPlacesInput): string[] {
  const named = [
    ...Object.values(input.configuredEnv),
    ...input.homeVariables.map((name) => input.agentEnv[name] ?? ''),
  ];
  const given = new Set<string>();
  for (const value of named) {
    if (!isAbsolute(value) || value.includes(':') || value.includes('\n')) continue;
    const path = resolve(value);
    if (!isGivable(path, input)) continue;
    given.add(path);
  }
  return [...given];
}

function isGivable(path: string, input: GivenPlacesInput): boolean {
  if (path === '/') return false;
  for (const guarded of [input.vault, input.state]) if (isUnder(path, guarded) || isUnder(guarded, path)) return false;
  if (input.home !== null) {
    if (isUnder(input.home, path)) return false;
    const secrets = NEVER_GIVEN_IN_HOME.map((name) => join(input.home ?? '/', name));
    if (secrets.some((secret) => isUnder(path, secret) || isUnder(secret, path))) return false;
  }
  return true;
}

/** Pure: whether a missing given path is taken for a folder to make (no dot in its last name) rather than a file. */
export function madeAsFolder(path: string): boolean {
  return !path.slice(dirname(path).length + 1).includes('.');
}
