import { describe, expect, test } from 'vitest';
import { codexConfigWithoutTools, geminiAuthSettings } from '../../src/sandbox/agent-settings.js';

const auth = (type: string): string => `${JSON.stringify({ security: { auth: { selectedType: type } } }, null, 2)}\n`;

describe("Gemini CLI's settings in a private home: the auth method, nothing else", () => {
  test.each([
    [
      'the auth method kept, MCP servers and hooks left out',
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        mcpServers: { mine: { command: 'my-server' } },
        hooks: { BeforeTool: [{ command: 'echo hook' }] },
      }),
      auth('gemini-api-key'),
    ],
    ['the older top-level key', '{"selectedAuthType": "oauth-personal", "theme": "x"}', auth('oauth-personal')],
    [
      'line comments outside strings',
      '{\n // my login\n "security": {"auth": {"selectedType": "a//b"}}\n}',
      auth('a//b'),
    ],
    ['no method named', '{"mcpServers": {}}', null],
    ['not JSON', '{ security: ', null],
    ['not an object', '"text"', null],
    ['an empty method', '{"selectedAuthType": ""}', null],
  ])('%s', (_name, text, expected) => {
    expect(geminiAuthSettings(text)).toBe(expected);
  });
});

describe("Codex's config.toml in a private home: no MCP servers, no notify program", () => {
  test.each([
    [
      'providers and model kept; mcp_servers tables dropped',
      'model = "o4"\n[model_providers.local]\nbase_url = "http://127.0.0.1:9/v1"\n[mcp_servers.mine]\ncommand = "my-server"\nargs = ["-x"]\n[mcp_servers.mine.env]\nK = "v"\n[profiles.fast]\nmodel = "o4-mini"\n',
      'model = "o4"\n[model_providers.local]\nbase_url = "http://127.0.0.1:9/v1"\n[profiles.fast]\nmodel = "o4-mini"\n',
    ],
    ['a quoted table name', '[mcp_servers."my server"]\ncommand = "x"\n[tools]\nweb = true', '[tools]\nweb = true'],
    ['notify on one line', 'notify = ["notify-send", "done"]\nmodel = "o4"', 'model = "o4"'],
    ['notify over several lines', 'notify = [\n  "notify-send",\n  "done",\n]\nmodel = "o4"', 'model = "o4"'],
    ['notify inside a table is not the top-level key', '[tui]\nnotify = true', '[tui]\nnotify = true'],
    ['hooks tables', '[hooks]\nstop = "x"\n[hooks.pre]\na = 1\n[x]\nb = 2', '[x]\nb = 2'],
    ['nothing to drop', 'model = "o4"\n', 'model = "o4"\n'],
  ])('%s', (_name, text, expected) => {
    expect(codexConfigWithoutTools(text)).toBe(expected);
  });
});
