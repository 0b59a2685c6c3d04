import { join } from 'node:path';
import { prdPath } from './agent-sandbox.js';
import type { SandboxPaths } from './agent-sandbox.js';
import * as anthropic from './anthropic-server.js';
import * as gemini from './gemini-server.js';
import * as openai from './openai-server.js';
import type { JsonRequest } from './scripted-server.js';

/**
 * The scripted model APIs the real agent CLIs run against (test/agent-clis), one per protocol, each
 * with the environment its CLI needs to reach it offline and with its own retries off.
 */

/** A scripted model API, whichever protocol it speaks. */
export interface ScriptedApi {
  remainingTurns(): number;
  /** The scripted model turns answered so far (a CLI's side calls aside), in order. */
  turns(): JsonRequest[];
  /** The prompt text a turn sent. */
  promptOf(turn: JsonRequest): string;
  /** The environment of the harness: where the API is, the key, a HOME and TMPDIR of its own. */
  env(paths: SandboxPaths): Record<string, string>;
  close(): Promise<void>;
}

/** Claude Code against a scripted Messages API; `auth` replaces the API key (a subscription token). */
export async function claudeApi(script: anthropic.ScriptTurn[], auth?: Record<string, string>): Promise<ScriptedApi> {
  const api = await anthropic.startAnthropicServer(script);
  return {
    remainingTurns: () => api.remainingTurns(),
    turns: () => api.mainRequests(),
    promptOf: (turn) => anthropic.userText(turn as anthropic.RecordedRequest),
    env: ({ home, tmp }) => ({
      ANTHROPIC_BASE_URL: api.url,
      ...(auth ?? { ANTHROPIC_API_KEY: 'test' }),
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      TMPDIR: tmp,
      // Claude Code refuses bypassPermissions as root unless told it runs in a sandbox.
      IS_SANDBOX: '1',
      DISABLE_AUTOUPDATER: '1',
      // No telemetry, error reports or update checks.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      // Claude Code's own backoff (10 retries over about 3 minutes) off: wiggum's retry is tested.
      CLAUDE_CODE_MAX_RETRIES: '0',
    }),
    close: () => api.close(),
  };
}

/** Codex against a scripted Responses API (a `model_provider` in CODEX_HOME/config.toml); its own retries are off. */
export async function codexApi(script: openai.ScriptTurn[]): Promise<ScriptedApi> {
  const api = await openai.startOpenAIServer(script);
  return {
    remainingTurns: () => api.remainingTurns(),
    turns: () => api.turns(),
    promptOf: (turn) => openai.inputText(turn as openai.RecordedRequest),
    env: ({ home, tmp }) => ({
      CODEX_HOME: openai.writeCodexHome(join(home, '.codex'), api),
      OPENAI_API_KEY: 'test-key',
      HOME: home,
      TMPDIR: tmp,
    }),
    close: () => api.close(),
  };
}

/**
 * Gemini CLI against a scripted Gemini API. settings.json picks the API key, turns usage statistics
 * off and makes one attempt per request (Gemini's own retries take minutes); naming the model in
 * GEMINI_MODEL skips the router call the `auto` model makes before every turn.
 */
export async function geminiApi(
  script: gemini.ScriptTurn[],
): Promise<ScriptedApi & { requests: gemini.RecordedRequest[] }> {
  const api = await gemini.startGeminiServer(script);
  return {
    requests: api.requests,
    remainingTurns: () => api.remainingTurns(),
    turns: () => api.turns(),
    promptOf: (turn) => gemini.userText(turn as gemini.RecordedRequest),
    env: ({ home, tmp }) => ({
      HOME: gemini.writeGeminiHome(home),
      GOOGLE_GEMINI_BASE_URL: api.url,
      GEMINI_API_KEY: 'test-key',
      GEMINI_MODEL: gemini.GEMINI_TEST_MODEL,
      // Keeps Gemini from restarting itself in a child process.
      GEMINI_CLI_NO_RELAUNCH: 'true',
      // Gemini writes its error reports to TMPDIR.
      TMPDIR: tmp,
    }),
    close: () => api.close(),
  };
}

/** OpenCode's config: every model call to `url` (its `anthropic` provider), no sharing, no update check. */
export function opencodeConfig(url: string): string {
  return JSON.stringify({
    model: 'anthropic/claude-sonnet-4-5',
    autoupdate: false,
    share: 'disabled',
    provider: { anthropic: { options: { baseURL: `${url}/v1`, apiKey: 'test-key' } } },
  });
}

/**
 * OpenCode against a scripted Messages API. OpenCode retries a 429 or 5xx five times itself (22 s
 * to 90 s) with no setting to turn that off, so only a failure it does not retry (401) is run.
 */
export async function opencodeApi(script: anthropic.ScriptTurn[]): Promise<ScriptedApi> {
  const api = await anthropic.startAnthropicServer(script);
  return {
    remainingTurns: () => api.remainingTurns(),
    turns: () => api.mainRequests(),
    promptOf: (turn) => anthropic.userText(turn as anthropic.RecordedRequest),
    env: ({ home, tmp }) => ({
      OPENCODE_CONFIG_CONTENT: opencodeConfig(api.url),
      // The model list bundled in the binary, not models.dev.
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      // With a fresh HOME, OpenCode fetches its plugin packages from the npm registry on every
      // run; a registry address that refuses at once keeps the run offline.
      npm_config_registry: 'http://127.0.0.1:9/',
      HOME: home,
      TMPDIR: tmp,
    }),
    close: () => api.close(),
  };
}

/** A shell command that sets `passes: true` on every story of a prd.json (Codex has no file tool in its default args). */
export function markPassing(prd: string): string {
  const script =
    'const fs=require("fs");const f=process.argv[1];const d=JSON.parse(fs.readFileSync(f,"utf8"));for(const s of d.userStories)s.passes=true;fs.writeFileSync(f,JSON.stringify(d,null,2)+"\\n")';
  return `node -e '${script}' '${prd}'`;
}

/** A script whose first turn reads prd.json's path from the prompt. */
export function withPrd<T>(build: (prd: () => string, read: (prompt: string) => void) => Promise<T>): Promise<T> {
  let prd = '';
  return build(
    () => prd,
    (prompt) => {
      prd = prdPath(prompt);
    },
  );
}
