import { sandboxTools } from '../sandbox/availability.js';
import { judgeSandbox } from './sandbox-check.js';
import { constants, readFileSync } from 'node:fs';
import { access, readFile, readdir, stat, statfs } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { checkConfig } from '../config/load.js';
import { DEFAULT_CONFIG_FILE, resolvePath } from '../config/sources.js';
import type { ConfigSources } from '../config/sources.js';
import { locateCommand, readCommandVersion } from '../harness/command-lookup.js';
import { harnessEnvironment } from '../harness/environment.js';
import { formatProblem } from '../problem.js';
import { readTaskFile } from '../task/read.js';
import { vaultLayout } from '../vault/layout.js';
import { isTaskFileName } from '../vault/names.js';
import {
  judgeConfig,
  judgeCredentials,
  judgeDisk,
  judgeFolder,
  judgeGit,
  judgeHarness,
  judgeInotify,
  judgeNode,
} from './checks.js';
import type { CheckResult, FolderState, HarnessUse } from './checks.js';

/** A --version that takes longer than this is not waited for: doctor answers in seconds. */
const VERSION_TIMEOUT_MS = 5000;

export interface DoctorRequest {
  vault: string;
  config: ConfigSources;
  env: NodeJS.ProcessEnv;
}

/**
 * Looks at everything a first run needs, in order: the config, each harness's command and
 * credentials, the vault's folders, the inotify limit, git, free disk space, Node. Each fact is
 * judged by a pure function in checks.ts; this file only reads the machine.
 */
export async function gatherChecks(request: DoctorRequest): Promise<CheckResult[]> {
  const checked = await checkConfig(request.config);
  const results: CheckResult[] = checked.ok
    ? judgeConfig([], checked.config.sources)
    : judgeConfig(checked.problems.map(formatProblem), []);
  const config = checked.ok ? checked.config : null;
  const folders = config?.folders ?? { approved: 'Approved', done: 'Done', rejected: 'Rejected', review: 'Review' };
  const layout = vaultLayout(request.vault, { folders, dashboard: null });

  if (config === null) {
    results.push({
      check: 'harnesses',
      status: 'warn',
      message: 'not checked: the config has problems',
      fix: 'fix the config, then run wiggum doctor again',
    });
  } else {
    const [harnessResults, git] = await Promise.all([
      checkHarnesses(config, layout.approved, request),
      checkGit(config, request),
    ]);
    results.push(...harnessResults);
    results.push(git);
    // Starts a trivial process under bubblewrap (never an agent) to tell it works.
    results.push(judgeSandbox(config.sandbox, await sandboxTools(request.env), process.getuid?.() === 0));
  }

  for (const [label, path] of [
    [`${folders.approved}/`, layout.approved],
    [`${folders.done}/`, layout.done],
    [`${folders.rejected}/`, layout.rejected],
    ['.wiggum/', join(request.vault, '.wiggum')],
  ] as const) {
    results.push(judgeFolder(label, path, await folderState(path)));
  }
  results.push(judgeInotify(await inotifyLimit(), await watchedCount(layout.approved)));
  results.push(judgeDisk(request.vault, await freeBytes(request.vault)));
  results.push(judgeNode(process.versions.node, enginesRange()));
  return results;
}

async function checkHarnesses(config: WiggumConfig, approved: string, request: DoctorRequest): Promise<CheckResult[]> {
  const uses = await harnessUses(config, approved);
  const demoCommand = resolvePath('../dist/demo/agent.js', dirname(DEFAULT_CONFIG_FILE));
  const setNames = new Set(
    Object.entries(request.env)
      .filter(([, value]) => typeof value === 'string' && value !== '')
      .map(([name]) => name),
  );
  const perHarness = await Promise.all(
    Object.values(config.harnesses).map(async (harness) => {
      const use = uses.get(harness.name) ?? { tasks: [], isDefault: false };
      const location = await locateCommand(harness.command, { pathEnv: request.env.PATH, cwd: request.vault });
      const builtInDemo = harness.command === demoCommand;
      // With the environment a run gives it: the allowlisted variables and the harness's own env.
      const env = harnessEnvironment(request.env, config.harness.envAllowlist, harness.env);
      const version =
        location.status === 'found' && !builtInDemo
          ? await readCommandVersion(location.path, VERSION_TIMEOUT_MS, env)
          : null;
      const lines = [judgeHarness({ name: harness.name, builtInDemo, use, location, version })];
      const credentials = judgeCredentials({
        harness: harness.name,
        kind: harness.kind,
        use,
        setNames,
        allowlist: config.harness.envAllowlist,
        harnessEnvNames: Object.keys(harness.env),
      });
      if (credentials !== null) lines.push(credentials);
      return lines;
    }),
  );
  return perHarness.flat();
}

/** Which harness each task in Approved/ runs with (its own `harness:`, else the default). */
async function harnessUses(config: WiggumConfig, approved: string): Promise<Map<string, HarnessUse>> {
  const uses = new Map<string, HarnessUse>();
  const useOf = (name: string): HarnessUse => {
    const existing = uses.get(name);
    if (existing !== undefined) return existing;
    const created: HarnessUse = { tasks: [], isDefault: false };
    uses.set(name, created);
    return created;
  };
  if (config.harness.defaultName !== null) useOf(config.harness.defaultName).isDefault = true;
  for (const name of await taskNames(approved)) {
    const read = await readTaskFile(join(approved, name)).catch(() => null);
    if (read === null || !read.result.ok) continue;
    const harness = read.result.task.frontmatter.harness ?? config.harness.defaultName;
    if (harness !== null && harness !== '') useOf(harness).tasks.push(name);
  }
  return uses;
}

async function checkGit(config: WiggumConfig, request: DoctorRequest): Promise<CheckResult> {
  const location = await locateCommand('git', { pathEnv: request.env.PATH, cwd: request.vault });
  const version =
    location.status === 'found' ? await readCommandVersion(location.path, VERSION_TIMEOUT_MS, request.env) : null;
  return judgeGit(config.git.enabled, location, version);
}

async function taskNames(folder: string): Promise<string[]> {
  try {
    return (await readdir(folder)).filter(isTaskFileName).sort();
  } catch {
    return [];
  }
}

async function folderState(path: string): Promise<FolderState> {
  try {
    if (!(await stat(path)).isDirectory()) return 'not-a-folder';
  } catch {
    return 'missing';
  }
  try {
    await access(path, constants.R_OK | constants.W_OK | constants.X_OK);
    return 'ok';
  } catch {
    return 'no-access';
  }
}

async function inotifyLimit(): Promise<number | null> {
  try {
    const value = Number.parseInt((await readFile('/proc/sys/fs/inotify/max_user_watches', 'utf8')).trim(), 10);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/** The watcher holds one watch on the vault root, one on Approved/ and one per entry in it (depth 0). */
async function watchedCount(approved: string): Promise<number> {
  try {
    return 2 + (await readdir(approved)).length;
  } catch {
    return 2;
  }
}

async function freeBytes(path: string): Promise<number | null> {
  try {
    const stats = await statfs(path);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

/** package.json's engines.node, one folder above dist/ (and src/). */
function enginesRange(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { engines?: { node?: string } }).engines?.node ?? '';
}
