import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  INSTALL_AGENT_CLIS,
  PROMISE,
  agentCli,
  agentSandbox,
  expectDarkModeCommitted,
  expectOneCompleteIteration,
  prdPath,
  requireRunnable,
  runToAuthRejection,
} from '../helpers/agent-sandbox.js';
import type { AgentSandbox } from '../helpers/agent-sandbox.js';
import { apiError, reply, startAnthropicServer, userText } from '../helpers/anthropic-server.js';
import type { AnthropicServer, RecordedRequest, ScriptBlock, ScriptTurn } from '../helpers/anthropic-server.js';

/**
 * The real OpenCode CLI (pinned in test/agent-clis), run by the built `wiggum run` with the default
 * `opencode` harness args, against a scripted Messages API on 127.0.0.1 as its `anthropic`
 * provider (OPENCODE_CONFIG_CONTENT): real `bash`, `read` and `write` calls in a real git
 * repository, real JSON events, real failure texts. OpenCode retries a 429 or 5xx five times
 * itself (22 s to 90 s) with no setting to turn that off, so only a failure it does not retry
 * (401) is run here.
 */
const OPENCODE = agentCli('opencode');

beforeAll(() => {
  // The package's postinstall links the platform binary over a stub.
  requireRunnable(OPENCODE, INSTALL_AGENT_CLIS);
});

let server: AnthropicServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** OpenCode's config: every model call to `url`, no sharing, no update check. */
function opencodeConfig(url: string): string {
  return JSON.stringify({
    model: 'anthropic/claude-sonnet-4-5',
    autoupdate: false,
    share: 'disabled',
    provider: { anthropic: { options: { baseURL: `${url}/v1`, apiKey: 'test-key' } } },
  });
}

async function setup(script: ScriptTurn[], options: { task: string }): Promise<AgentSandbox> {
  const api = await startAnthropicServer(script);
  server = api;
  return agentSandbox({
    prefix: 'wiggum-opencode-',
    harness: 'opencode',
    harnessConfig: ({ home, tmp }) => ({
      command: OPENCODE,
      env: {
        OPENCODE_CONFIG_CONTENT: opencodeConfig(api.url),
        // The model list bundled in the binary, not models.dev.
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        // With a fresh HOME, OpenCode fetches its plugin packages from the npm registry on every
        // run; a registry address that refuses at once keeps the run offline.
        npm_config_registry: 'http://127.0.0.1:9/',
        HOME: home,
        TMPDIR: tmp,
      },
    }),
    task: options.task,
  });
}

/** OpenCode's shell tool. */
function bash(command: string, description = 'Run a command'): ScriptBlock {
  return { type: 'tool_use', name: 'bash', input: { command, description } };
}

/** What OpenCode sent back for the tool calls of the previous turn (`!` before a failed one). */
function toolResults(request: RecordedRequest): string[] {
  const last = (request.body?.['messages'] as { content?: unknown }[] | undefined)?.at(-1);
  if (!Array.isArray(last?.content)) return [];
  return (last.content as { type?: unknown; content?: unknown; is_error?: unknown }[])
    .filter((block) => block.type === 'tool_result')
    .map(
      (block) =>
        `${block.is_error === true ? '!' : ''}${typeof block.content === 'string' ? block.content : JSON.stringify(block.content)}`,
    );
}

const OPEN_TASK =
  '---\ntitle: Dark mode\nworkdir: WORKDIR\nharness: opencode\n---\n# Dark mode\n\nAdd a dark mode.\n\n- [ ] US-001 Dark mode toggle\n';

describe('wiggum run with the real OpenCode CLI', () => {
  test('real tool calls: a commit, a story marked passing, a promise over several lines → Done', async () => {
    let prd = '';
    const s = await setup(
      [
        (request) => {
          prd = prdPath(userText(request));
          return reply(
            'I will implement US-001.',
            bash(
              `printf 'dark mode\\n' >> app.txt && git commit -q -am "feat: US-001 - Dark mode toggle"`,
              'Implement and commit',
            ),
          );
        },
        // prd.json lies outside the workdir: OpenCode's file tools need the `external_directory`
        // permission there, which --auto grants (run unattended, it would otherwise be refused).
        () => reply({ type: 'tool_use', name: 'read', input: { filePath: prd } }),
        () => {
          const data = JSON.parse(readFileSync(prd, 'utf8')) as { userStories: { passes: boolean }[] };
          for (const story of data.userStories) story.passes = true;
          return reply({
            type: 'tool_use',
            name: 'write',
            input: { filePath: prd, content: `${JSON.stringify(data, null, 2)}\n` },
          });
        },
        reply(PROMISE),
      ],
      { task: OPEN_TASK },
    );
    const result = await s.runToDone();
    expect(server?.remainingTurns()).toBe(0);

    // The prompt reached the API with the task and the key; every tool call succeeded.
    const main = server?.mainRequests() ?? [];
    expect(main).toHaveLength(4);
    expect(userText(main[0]!)).toContain('## Task: Dark mode (dark-mode)');
    expect(main[0]?.headers['x-api-key']).toBe('test-key');
    expect(main.slice(1).map(toolResults)).toEqual([
      ['(no output)'],
      [expect.stringContaining('"passes": false')],
      ['Wrote file successfully.'],
    ]);

    expectDarkModeCommitted(s, prd);
    // OpenCode reports tokens per step; wiggum sums the four: 4 × 100 in, 4 × 20 out.
    expectOneCompleteIteration(s.history(), { input: 400, output: 80 }, /^ses_\w+$/);
    expect(s.history()[0]?.usage?.costUsd).toBeGreaterThan(0);

    // The live stream is readable lines, not JSON.
    expect(result.stdout).toContain("printf 'dark mode\\n' >> app.txt");
    expect(result.stdout).toContain('I will implement US-001.');
    expect(result.stdout).not.toContain('{"type"');
  });

  test('401: a hard failure after one attempt, rejected with what to do', async () => {
    const s = await setup([apiError(401, 'invalid x-api-key')], { task: OPEN_TASK });
    const report = await runToAuthRejection(s);
    expect(report).toContain('invalid x-api-key');
    expect(report).toContain('opencode auth login');
    expect(s.history()[0]?.exitCode).toBe(1);
    expect(server?.mainRequests()).toHaveLength(1);
  });
});
