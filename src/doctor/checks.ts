import type { HarnessKind } from '../config/schema.js';
import type { CommandLocation, VersionReading } from '../harness/command-lookup.js';
import { describeLocation } from '../harness/command-lookup.js';
import { plural } from '../plural.js';

/** ok: nothing to do; warn: worth a look, a first run can still work; fail: must be fixed first. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One line of `wiggum doctor`: what was checked, how it stands, and what to do when it is not ok. */
export interface CheckResult {
  check: string;
  status: CheckStatus;
  message: string;
  fix: string | null;
}

const ok = (check: string, message: string): CheckResult => ({ check, status: 'ok', message, fix: null });
const warn = (check: string, message: string, fix: string | null): CheckResult => ({
  check,
  status: 'warn',
  message,
  fix,
});
const fail = (check: string, message: string, fix: string): CheckResult => ({ check, status: 'fail', message, fix });

/** 0 when nothing fails (warnings alone included), 1 when something must be fixed. */
export function doctorExitCode(results: readonly CheckResult[]): 0 | 1 {
  return results.some((result) => result.status === 'fail') ? 1 : 0;
}

/** The configuration: its problems as `validate` prints them, or the files it was merged from. */
export function judgeConfig(problems: readonly string[], sources: readonly string[]): CheckResult[] {
  if (problems.length === 0) return [ok('config', `loads and validates (${sources.join(', ')})`)];
  return problems.map((problem) =>
    fail('config', problem, 'fix the config file as the line says; wiggum validate checks it again'),
  );
}

/** Who runs a harness: the tasks in Approved/ that name it, and whether it is the default. */
export interface HarnessUse {
  tasks: string[];
  isDefault: boolean;
}

export function describeUse(use: HarnessUse): string {
  const parts: string[] = [];
  if (use.tasks.length > 0) {
    const shown = use.tasks.slice(0, 3).join(', ');
    parts.push(`used by ${plural(use.tasks.length, 'task')}: ${shown}${use.tasks.length > 3 ? ', …' : ''}`);
  }
  if (use.isDefault) parts.push('the default (harness.default)');
  return parts.length === 0 ? 'not used by any task in Approved/' : parts.join('; ');
}

const isUsed = (use: HarnessUse): boolean => use.tasks.length > 0 || use.isDefault;

export interface HarnessFacts {
  name: string;
  builtInDemo: boolean;
  use: HarnessUse;
  location: CommandLocation;
  /** null when --version was not run (the command is missing, or it is the demo agent). */
  version: VersionReading | null;
}

/**
 * A harness's command. Missing is a failure for a harness a task or the default uses (those tasks
 * cannot run), a warning for one nothing uses yet.
 */
export function judgeHarness(facts: HarnessFacts): CheckResult {
  const check = `harness ${facts.name}`;
  const use = describeUse(facts.use);
  const where = describeLocation(facts.location, `harnesses.${facts.name}.command`);
  if (!where.ok) {
    const message = `${where.text}; ${use}`;
    const fix = where.fix ?? 'fix the command';
    return isUsed(facts.use)
      ? fail(check, message, fix)
      : warn(check, message, `${fix} (only needed once a task uses it)`);
  }
  if (facts.builtInDemo) return ok(check, `built-in demo agent (no network, no API key); ${use}`);
  if (facts.version === null || facts.version.ok) {
    return ok(check, `${where.text}${facts.version?.ok === true ? `, version ${facts.version.version}` : ''}; ${use}`);
  }
  return warn(
    check,
    `${where.text}, but its version is unknown: ${facts.version.reason}; ${use}`,
    `check that ${facts.location.command} --version runs on its own`,
  );
}

/** What each built-in agent needs to sign in: one of these variables, or its own login. */
export const AGENT_CREDENTIALS: Partial<Record<HarnessKind, { anyOf: string[]; login: string | null }>> = {
  claude: {
    anyOf: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'],
    login: 'a `claude login` of the user wiggum runs as',
  },
  codex: { anyOf: ['OPENAI_API_KEY'], login: 'a `codex login` of the user wiggum runs as' },
  gemini: { anyOf: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], login: null },
  amp: { anyOf: ['AMP_API_KEY'], login: null },
};

export interface CredentialFacts {
  harness: string;
  kind: HarnessKind;
  use: HarnessUse;
  /** Names set (non-empty) in wiggum's environment. Only names: a value is never passed here. */
  setNames: ReadonlySet<string>;
  allowlist: readonly string[];
  /** Names the harness's own `env:` sets. */
  harnessEnvNames: readonly string[];
}

/**
 * The variables an agent signs in with, by name only. A variable reaches the agent when wiggum's
 * environment sets it and `harness.env_allowlist` passes it, or the harness's `env:` sets it.
 */
export function judgeCredentials(facts: CredentialFacts): CheckResult | null {
  const needs = AGENT_CREDENTIALS[facts.kind];
  if (needs === undefined) return null;
  const check = `env ${facts.harness}`;
  const names = needs.anyOf.join(' or ');
  const reaching = needs.anyOf.filter(
    (name) => facts.harnessEnvNames.includes(name) || (facts.setNames.has(name) && facts.allowlist.includes(name)),
  );
  if (reaching.length > 0) return ok(check, `${reaching.join(', ')} set (needs ${names})`);
  const blocked = needs.anyOf.filter((name) => facts.setNames.has(name));
  if (blocked.length > 0) {
    return warn(
      check,
      `${blocked.join(', ')} set, but not in harness.env_allowlist: ${facts.harness} will not see it`,
      `add ${blocked.join(', ')} to harness.env_allowlist`,
    );
  }
  const orLogin = needs.login === null ? '' : `, or ${needs.login}`;
  const message = `${names} not set${needs.login === null ? '' : ` (it can also sign in with ${needs.login})`}`;
  if (!isUsed(facts.use)) return ok(check, `${message}; not used by any task, so nothing waits on it`);
  return warn(check, message, `export ${needs.anyOf[0] ?? names} in the environment wiggum runs in${orLogin}`);
}

export type FolderState = 'ok' | 'missing' | 'not-a-folder' | 'no-access';

/** A vault folder must be a folder the current user can read and write. */
export function judgeFolder(label: string, path: string, state: FolderState): CheckResult {
  const check = `vault ${label}`;
  switch (state) {
    case 'ok':
      return ok(check, `${path} is readable and writable`);
    case 'missing':
      return warn(check, `${path} does not exist`, 'wiggum start creates it; or run wiggum init on the vault');
    case 'not-a-folder':
      return fail(check, `${path} is not a folder`, `move the file away from ${path}`);
    case 'no-access':
      return fail(
        check,
        `${path} is not readable and writable by this user (permission denied)`,
        `fix its owner or permissions (chown/chmod), or run wiggum as its owner`,
      );
  }
}

/**
 * The inotify watch limit against what the vault needs: chokidar holds about one watch per folder
 * and file it watches, and every other program of the same user shares the limit.
 */
export function judgeInotify(limit: number | null, watched: number): CheckResult {
  const fix = 'raise it: sudo sysctl fs.inotify.max_user_watches=524288 (and in /etc/sysctl.d/ to keep it)';
  if (limit === null)
    return warn(
      'inotify',
      'cannot read /proc/sys/fs/inotify/max_user_watches; file events may be missed (the rescan still finds tasks)',
      null,
    );
  const message = `max_user_watches ${limit}; the vault needs about ${watched}`;
  if (watched >= limit) return fail('inotify', `${message}: over the limit`, fix);
  if (watched * 2 >= limit)
    return warn('inotify', `${message}: close to the limit (shared with this user's other programs)`, fix);
  return ok('inotify', message);
}

/** git: tasks whose workdir is a repository need it when git.enabled is on. */
export function judgeGit(enabled: boolean, location: CommandLocation, version: VersionReading | null): CheckResult {
  if (location.status !== 'found') {
    const message = `git is missing (not found on PATH)`;
    return enabled
      ? warn('git', `${message}: tasks in git workdirs cannot record commits`, 'install git, or set git.enabled: false')
      : ok('git', `${message}; git.enabled is false`);
  }
  const shown =
    version?.ok === true ? version.version : `version unknown${version === null ? '' : ` (${version.reason})`}`;
  return ok('git', `${location.path}: ${shown}`);
}

export const DISK_WARN_BYTES = 1024 ** 3;
export const DISK_FAIL_BYTES = 64 * 1024 ** 2;

/** Free disk space on the vault's file system, for memory, logs and checkpoints. */
export function judgeDisk(path: string, freeBytes: number | null): CheckResult {
  if (freeBytes === null) return warn('disk', `cannot read the free space of ${path}`, null);
  const message = `${formatBytes(freeBytes)} free space on the file system of ${path}`;
  if (freeBytes < DISK_FAIL_BYTES)
    return fail('disk', message, 'free disk space: session logs and checkpoints need room');
  if (freeBytes < DISK_WARN_BYTES)
    return warn(
      'disk',
      `${message} (under ${formatBytes(DISK_WARN_BYTES)})`,
      'free disk space before long runs: each iteration keeps its log',
    );
  return ok('disk', message);
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** Node against package.json's `engines.node` (a `>=X.Y.Z` range). */
export function judgeNode(version: string, range: string): CheckResult {
  const minimum = /^>=\s*v?(\d+(?:\.\d+){0,2})$/.exec(range.trim())?.[1];
  if (minimum === undefined) return warn('node', `${version}; cannot read the engines range "${range}"`, null);
  if (compareVersions(version, minimum) >= 0) return ok('node', `${version} (needs ${range})`);
  return fail('node', `${version} is too old (needs ${range})`, `install Node ${minimum} or newer`);
}

/** Compares dotted versions numerically (`v20.9.0` < `20.19.0`); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string): number[] =>
    v
      .replace(/^v/, '')
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    const diff = (x[i] ?? 0) - (y[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}
