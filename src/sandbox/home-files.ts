import type { HarnessKind } from '../config/schema.js';
import type { HomeFile } from '../config/sandbox-settings.js';

/**
 * What of the real home each built-in agent needs inside its private home to be logged in, and
 * nothing more: its credentials, never its settings, hooks or MCP servers (those would run the
 * user's own tools inside every task). Copied when newer than the private copy, so a token the
 * agent refreshes inside is kept until the user logs in again outside. `sandbox.home_files` adds
 * to these (docs/sandbox.md).
 *
 * - Claude Code: `~/.claude/.credentials.json` (a `claude login`); `~/.claude.json` is its
 *   settings and project history, not a login, so it stays out.
 * - Codex: `~/.codex/auth.json` (a `codex login`); its config.toml is derived (sandbox/agent-settings.ts).
 * - Gemini CLI: `~/.gemini/oauth_creds.json` and `~/.gemini/google_accounts.json`; its auth
 *   method, from settings.json, is derived (sandbox/agent-settings.ts).
 * - OpenCode: `~/.local/share/opencode/auth.json`.
 * - Amp: its API key is AMP_API_KEY (allow-listed); `amp login` keeps it in
 *   `~/.local/share/amp/secrets.json`.
 */
export const AGENT_HOME_FILES: Record<HarnessKind, readonly HomeFile[]> = {
  claude: [{ path: '.claude/.credentials.json', mode: 'copy' }],
  codex: [{ path: '.codex/auth.json', mode: 'copy' }],
  gemini: [
    { path: '.gemini/oauth_creds.json', mode: 'copy' },
    { path: '.gemini/google_accounts.json', mode: 'copy' },
  ],
  opencode: [{ path: '.local/share/opencode/auth.json', mode: 'copy' }],
  amp: [{ path: '.local/share/amp/secrets.json', mode: 'copy' }],
  command: [],
};

/** Pure: the home files of one harness: its kind's, then the configured ones (a later one of a path wins). */
export function homeFilesOf(kind: HarnessKind, configured: readonly HomeFile[]): HomeFile[] {
  const byPath = new Map<string, HomeFile>();
  for (const file of [...AGENT_HOME_FILES[kind], ...configured]) byPath.set(file.path, file);
  return [...byPath.values()];
}
