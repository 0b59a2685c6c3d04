/**
 * The parts of an agent's own settings file that a private home needs for the agent to log in and
 * reach its model, and nothing that would start the user's tools inside a task (MCP servers,
 * hooks, notify programs). Each is a pure function of the user's file: the private copy is
 * written from it before every run, so a change outside reaches the next run.
 */

/** A settings file of the private home made from the real one (home-relative paths). */
export interface DerivedHomeFile {
  /** The real file, under the real home. */
  from: string;
  /** The private home's file. */
  to: string;
  /** The private file's text from the real one's; null: none (no private file is written). */
  derive: (text: string) => string | null;
}

/**
 * Pure: Gemini CLI's settings.json reduced to the auth method it was told to use
 * (`security.auth.selectedType`, or the older top-level `selectedAuthType`): without it, Gemini
 * refuses to start ("Invalid auth method selected"). Everything else (mcpServers, hooks, tools) is
 * left out. null when the file does not parse or names no method.
 */
export function geminiAuthSettings(text: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutJsonComments(text));
  } catch {
    return null;
  }
  const settings = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const security = settings['security'] as { auth?: { selectedType?: unknown } } | undefined;
  const chosen = security?.auth?.selectedType ?? settings['selectedAuthType'];
  if (typeof chosen !== 'string' || chosen === '') return null;
  return `${JSON.stringify({ security: { auth: { selectedType: chosen } } }, null, 2)}\n`;
}

/** Gemini accepts `//` line comments in settings.json: removed outside strings. */
function withoutJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      out += char;
      if (char === '\\') out += text[++i] ?? '';
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else out += char;
  }
  return out;
}

/** The tables of Codex's config.toml that start programs of the user's: left out. */
const CODEX_TOOL_TABLES = /^(mcp_servers|hooks)(\.|$)/;

/**
 * Pure: Codex's config.toml without what starts the user's own programs: the `[mcp_servers.*]`
 * tables and the top-level `notify` command (a multi-line array too). The model providers,
 * profiles and model settings stay: they are how Codex reaches its model.
 */
export function codexConfigWithoutTools(text: string): string {
  const kept: string[] = [];
  let table = '';
  let inNotify = false;
  for (const line of text.split('\n')) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header !== null && !inNotify) {
      table = (header[1] ?? '').replace(/["']/g, '');
      if (!CODEX_TOOL_TABLES.test(table)) kept.push(line);
      continue;
    }
    if (inNotify) {
      if (line.includes(']')) inNotify = false;
      continue;
    }
    if (CODEX_TOOL_TABLES.test(table)) continue;
    if (table === '' && /^\s*notify\s*=/.test(line)) {
      inNotify = line.includes('[') && !line.includes(']');
      continue;
    }
    kept.push(line);
  }
  return kept.join('\n');
}

/** Per agent kind, the settings files its private home gets, derived. */
export const AGENT_DERIVED_FILES: Record<string, readonly DerivedHomeFile[]> = {
  gemini: [{ from: '.gemini/settings.json', to: '.gemini/settings.json', derive: geminiAuthSettings }],
  codex: [{ from: '.codex/config.toml', to: '.codex/config.toml', derive: codexConfigWithoutTools }],
};
