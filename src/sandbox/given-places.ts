import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isUnder } from './mount-plan.js';

/** What of the home is never given, whatever a variable names (docs/sandbox.md "What is protected"). */
const NEVER_GIVEN_IN_HOME = ['.ssh', '.aws', '.gnupg', '.config/gh', '.netrc', '.docker', '.kube'];

/**
 * The system's own folders: never given writable, whatever names them (a harness's
 * `SSL_CERT_FILE=/etc/ssl/cert.pem` names a file to read, not one the agent may rewrite).
 */
const SYSTEM = [
  '/etc',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/boot',
  '/proc',
  '/sys',
  '/dev',
  '/run',
  '/var/lib',
  '/var/log',
  '/var/cache',
  '/var/spool',
  '/var/mail',
  '/opt',
  '/snap',
  '/nix',
];

export interface GivenPlacesInput {
  /** What the person configured for a harness or a check (`env:` values, a check's args; never the task's). */
  named: readonly string[];
  home: string | null;
  vault: string;
  state: string;
}

/**
 * Pure: the places a person gave an agent by naming them for its harness or check: every absolute
 * path in a harness's configured `env:` or a check's args and `env:` (a folder its program writes,
 * e.g. a log, a channel, a report). Shown writable. (An agent's own folder moved by a variable, CODEX_HOME, is a private one:
 * agent-homes.ts.) Never given,
 * whatever names it: `/`, the system's folders (/etc, /usr, …), the home or a folder above it, the
 * vault or anything in or above it, wiggum's folder, and the home's secrets (~/.ssh, ~/.aws, …).
 */
export function givenPlaces(input: GivenPlacesInput): string[] {
  const given = new Set<string>();
  for (const value of input.named) {
    if (!isAbsolute(value) || value.includes(':') || value.includes('\n')) continue;
    const path = resolve(value);
    if (!isGivable(path, input)) continue;
    given.add(path);
  }
  return [...given];
}

function isGivable(path: string, input: GivenPlacesInput): boolean {
  if (path === '/' || SYSTEM.some((system) => isUnder(path, system) || isUnder(system, path))) return false;
  for (const guarded of [input.vault, input.state]) if (isUnder(path, guarded) || isUnder(guarded, path)) return false;
  if (input.home !== null) {
    if (isUnder(input.home, path)) return false;
    const secrets = NEVER_GIVEN_IN_HOME.map((name) => join(input.home ?? '/', name));
    if (secrets.some((secret) => isUnder(path, secret) || isUnder(secret, path))) return false;
  }
  return true;
}

/**
 * Pure: what is given for a named path that does not exist yet: its folder, so that the agent can
 * make it (a file or a folder, wiggum cannot tell which), unless that folder is a top-level one
 * (`/tmp`, `/var`): null then, nothing.
 */
export function folderToMakeIn(path: string): string | null {
  const parent = dirname(path);
  return parent.split('/').filter(Boolean).length >= 2 ? parent : null;
}

/** Pure: whether a missing named path that no given folder can hold is made as a folder (no dot in its last name) rather than skipped. */
export function madeAsFolder(path: string): boolean {
  return !path.slice(dirname(path).length + 1).includes('.');
}
