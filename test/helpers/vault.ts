import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import type { WiggumConfig } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load.js';
import type { VaultLayout } from '../../src/vault/layout.js';
import { vaultLayout } from '../../src/vault/layout.js';
import { REPO_ROOT } from './child.js';
import { tempDir } from './temp-dir.js';

export const FAKE_AGENT = join(REPO_ROOT, 'test', 'fixtures', 'agents', 'fake-agent.mjs');

export interface TestVault {
  root: string;
  layout: VaultLayout;
  config: WiggumConfig;
  /** Where the fake agent leaves `run-N` markers (holding the prompt it read). */
  marks: string;
  /** Writes `Approved/<name>.md` and returns its path. */
  task(name: string, text: string): string;
}

/** How many times the fake agent ran for each task (its `runs.log` in FAKE_RUNS_DIR, one id a line). */
export function fakeRuns(vault: Pick<TestVault, 'root'>): Map<string, number> {
  const counts = new Map<string, number>();
  const file = join(vault.root, 'fake-runs', 'runs.log');
  if (!existsSync(file)) return counts;
  for (const id of readFileSync(file, 'utf8').split('\n').filter(Boolean)) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

export interface TestVaultOptions {
  /** Environment of the `fake` harness (FAKE_MODE, FAKE_COMPLETE_AFTER, …). */
  fake?: Record<string, string>;
  /** More config, merged into `.wiggum/config.yaml` (snake_case, as a user writes it). */
  config?: Record<string, unknown>;
  /** Where the vault goes (a folder to create); a fresh temp folder by default. */
  root?: string;
  /** The fake agent the `fake` harness runs; FAKE_AGENT by default (another copy for another user). */
  agent?: string;
}

/**
 * A temp vault with a `fake` harness (the fake agent, a real executable) as the default, short
 * waits, and a config file written like a user's; the loaded config is returned too.
 */
export async function makeVault(options: TestVaultOptions = {}): Promise<TestVault> {
  const root = options.root ?? tempDir('wiggum-vault-');
  for (const folder of ['Approved', 'Done', 'Rejected', '.wiggum']) mkdirSync(join(root, folder), { recursive: true });
  const marks = join(root, 'marks');
  mkdirSync(marks);
  // Beside the marks, so that a test listing the marks sees run-N files alone.
  const runs = join(root, 'fake-runs');
  mkdirSync(runs);
  const config = {
    persistence_loop: {
      retry: { base_delay: '10ms', max_delay: '80ms' },
      timeout: { per_step: '20s', idle: '20s' },
      ...(options.config?.persistence_loop as object | undefined),
    },
    harness: { default: 'fake', stop_grace: '500ms', ...(options.config?.harness as object | undefined) },
    harnesses: {
      fake: {
        kind: 'command',
        command: options.agent ?? FAKE_AGENT,
        env: { FAKE_MARK_DIR: marks, FAKE_RUNS_DIR: runs, ...options.fake },
      },
      ...(options.config?.harnesses as object | undefined),
    },
    // The fake agent's markers, gates, pid and state files are the test's channels to it, across
    // its sandbox: declared writable (channelsOf), as a person declares what an agent may reach.
    sandbox: {
      ...(options.config?.sandbox as object | undefined),
      writable: [
        ...channelsOf(marks, options.fake, options.config?.harnesses),
        runs,
        ...((options.config?.sandbox as { writable?: string[] } | undefined)?.writable ?? []),
      ],
    },
    ...Object.fromEntries(
      Object.entries(options.config ?? {}).filter(
        ([key]) => !['persistence_loop', 'harness', 'harnesses', 'sandbox'].includes(key),
      ),
    ),
  };
  writeFileSync(join(root, '.wiggum', 'config.yaml'), stringify(config));
  const loaded = await loadConfig({ vault: root });
  return {
    root,
    layout: vaultLayout(root, loaded),
    config: loaded,
    marks,
    task(name, text) {
      const file = join(root, 'Approved', `${name}.md`);
      writeFileSync(file, text);
      return file;
    },
  };
}

/**
 * The folders of the fake agent's channels named in the harnesses' environments (FAKE_GATE_DIR,
 * FAKE_PIDFILE, …), and the folder of each scripted agent a test wrote into a temp dir: such a
 * script keeps its run count and records beside itself.
 */
function channelsOf(marks: string, fake: Record<string, string> | undefined, harnesses: unknown): string[] {
  const configured = Object.values(
    (harnesses ?? {}) as Record<string, { env?: Record<string, string>; command?: unknown }>,
  );
  const envs = [fake ?? {}, ...configured.map((h) => h.env ?? {})];
  const folders = new Set<string>([marks]);
  const temp = realpathSync(tmpdir());
  for (const { command } of configured)
    if (typeof command === 'string' && command.startsWith(`${temp}/`)) folders.add(dirname(command));
  for (const env of envs)
    for (const [name, value] of Object.entries(env)) {
      if (!value.startsWith('/')) continue;
      if (name === 'FAKE_GATE_DIR' || name === 'FAKE_MARK_DIR') folders.add(value);
      if (name === 'FAKE_PIDFILE' || name === 'FAKE_STATE_FILE' || name === 'FAKE_FILL') folders.add(dirname(value));
    }
  return [...folders];
}
