import { isAbsolute, resolve } from 'node:path';
import type { HarnessKind } from '../config/schema.js';
import type { HomeFile } from '../config/sandbox-settings.js';
import { codexConfigWithoutTools } from './agent-settings.js';
import type { DerivedHomeFile } from './agent-settings.js';

/**
 * A built-in agent's own folder that a variable moves out of `~` (CODEX_HOME, CLAUDE_CONFIG_DIR):
 * inside the sandbox a private folder is shown at that path, as the private home is shown at `~`,
 * with the same logins copied and settings derived from the real folder's. The agent writes its
 * sessions and logs there, never into the person's folder, and the person's MCP servers and
 * hooks stay out.
 */
export interface MovedHomeKind {
  variable: string;
  /** Home-relative to the moved folder. */
  files: readonly HomeFile[];
  derived: readonly DerivedHomeFile[];
}

export const AGENT_MOVED_HOMES: Partial<Record<HarnessKind, readonly MovedHomeKind[]>> = {
  codex: [
    {
      variable: 'CODEX_HOME',
      files: [{ path: 'auth.json', mode: 'copy' }],
      derived: [{ from: 'config.toml', to: 'config.toml', derive: codexConfigWithoutTools }],
    },
  ],
  claude: [{ variable: 'CLAUDE_CONFIG_DIR', files: [{ path: '.credentials.json', mode: 'copy' }], derived: [] }],
};

/** One moved folder of a run: where the agent looks (`target`) and what goes in its private copy. */
export interface MovedHome extends MovedHomeKind {
  target: string;
}

/**
 * Pure: the moved folders of a run of `kind` with the agent's environment `env`: each variable
 * set to an absolute path other than `/` and the home itself (the private home is there already).
 */
export function movedHomes(
  kind: HarnessKind,
  env: Readonly<Record<string, string | undefined>>,
  home: string | null,
): MovedHome[] {
  const moved: MovedHome[] = [];
  for (const entry of AGENT_MOVED_HOMES[kind] ?? []) {
    const value = env[entry.variable];
    if (value === undefined || !isAbsolute(value)) continue;
    const target = resolve(value);
    if (target === '/' || target === home) continue;
    moved.push({ ...entry, target });
  }
  return moved;
}
