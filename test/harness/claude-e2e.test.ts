import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  INSTALL_AGENT_CLIS,
  PROMISE,
  agentCli,
  agentSandbox,
  expectDarkModeCommitted,
  expectOneCompleteIteration,
  expectRetriedThenDone,
  prdPath,
  requireRunnable,
  runToAuthRejection,
} from '../helpers/agent-sandbox.js';
import type { AgentSandbox } from '../helpers/agent-sandbox.js';
import { apiError, bash, reply, startAnthropicServer, userText, write } from '../helpers/anthropic-server.js';
import type { AnthropicServer, ScriptTurn } from '../helpers/anthropic-server.js';

/**
 * The real Claude Code CLI (pinned in test/agent-clis), run by the built `wiggum run` against a
 * scripted Messages API on 127.0.0.1: real tool calls in a real git repository, real output, real
 * failure texts. Nothing leaves the machine (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC turns off
 * telemetry, error reports and update checks), and CLAUDE_CODE_MAX_RETRIES=0 turns off Claude
 * Code's own backoff (10 retries over about 3 minutes), so wiggum's retry is what is tested.
 */
const CLAUDE = agentCli('claude');

beforeAll(() => {
  // The package's postinstall copies the native binary over a stub that only prints an error.
  requireRunnable(CLAUDE, INSTALL_AGENT_CLIS);
});

let server: AnthropicServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function setup(
  script: ScriptTurn[],
  options: { task: string; auth?: Record<string, string>; config?: Record<string, unknown> },
): Promise<AgentSandbox> {
  const api = await startAnthropicServer(script);
  server = api;
  return agentSandbox({
    prefix: 'wiggum-claude-',
    harness: 'claude',
    harnessConfig: ({ home, tmp }) => ({
      command: CLAUDE,
      env: {
        ANTHROPIC_BASE_URL: api.url,
        ...(options.auth ?? { ANTHROPIC_API_KEY: 'test' }),
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        TMPDIR: tmp,
        // Claude Code refuses bypassPermissions as root unless told it runs in a sandbox.
        IS_SANDBOX: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
    }),
    task: options.task,
    config: options.config,
  });
}

const OPEN_TASK =
  '---\ntitle: Dark mode\nworkdir: WORKDIR\n---\n# Dark mode\n\nAdd a dark mode.\n\n- [ ] US-001 Dark mode toggle\n';
const FINISHED_TASK =
  '---\ntitle: Dark mode\nworkdir: WORKDIR\n---\n# Dark mode\n\nCheck the dark mode once more.\n\n- [x] US-001 Dark mode toggle\n';

describe('wiggum run with the real Claude Code CLI', () => {
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
        () => reply({ type: 'tool_use', name: 'Read', input: { file_path: prd } }),
        () => {
          const data = JSON.parse(readFileSync(prd, 'utf8')) as { userStories: { passes: boolean }[] };
          for (const story of data.userStories) story.passes = true;
          return reply(write(prd, `${JSON.stringify(data, null, 2)}\n`));
        },
        reply(PROMISE),
      ],
      { task: OPEN_TASK },
    );
    const result = await s.runToDone();
    expect(server?.remainingTurns()).toBe(0);

    // The prompt reached the API, with the task and the memory paths; no tool call failed.
    const main = server?.mainRequests() ?? [];
    expect(main).toHaveLength(4);
    expect(userText(main[0]!)).toContain('## Task: Dark mode (dark-mode)');
    expect(main[0]?.headers['x-api-key']).toBe('test');
    const results = main.flatMap(
      (request) => JSON.stringify(request.body?.['messages'] ?? []).match(/"is_error":true/g) ?? [],
    );
    expect(results, JSON.stringify(main.at(-1)?.body?.['messages'], null, 1)).toEqual([]);

    expectDarkModeCommitted(s, prd);

    const history = s.history();
    expectOneCompleteIteration(history, { input: 400, output: 80 });
    expect(history[0]?.git?.commits).toEqual([expect.stringMatching(/^[0-9a-f]+ feat: US-001 - Dark mode toggle$/)]);
    expect(history[0]?.usage?.costUsd).toBeGreaterThan(0);

    // The live stream is readable lines, not JSON.
    expect(result.stdout).toContain('→ Bash: printf');
    expect(result.stdout).toContain(`→ Write: ${prd}`);
    expect(result.stdout).toContain('✓ Claude Code finished');
    expect(result.stdout).not.toContain('{"type"');
  });

  test.each([
    [
      'rate limit (429)',
      apiError(429, 'Number of request tokens has exceeded your per-minute rate limit'),
      /rate limit was hit \(429\)/,
      'E_HARNESS_RATE_LIMIT',
    ],
    ['overloaded (529)', apiError(529, 'Overloaded'), /overloaded \(529\)/, 'E_HARNESS_OVERLOADED'],
  ])('%s, then success: a transient failure, retried by wiggum', async (_name, error, message, code) => {
    const s = await setup([error, reply(PROMISE)], {
      task: FINISHED_TASK,
      config: { persistence_loop: { retry: { base_delay: '10ms', max_delay: '20ms' } } },
    });
    await s.runToDone();
    const history = s.history();
    expectRetriedThenDone(history, code);
    expect(history[0]?.error?.message).toMatch(message);
  });

  test('401: a hard failure, rejected with what to do', async () => {
    const s = await setup([apiError(401, 'invalid x-api-key')], { task: OPEN_TASK });
    const report = await runToAuthRejection(s);
    expect(report).toContain('Invalid API key');
    expect(report).toContain('set ANTHROPIC_API_KEY');
    expect(report).toContain('claude login');
    expect(server?.mainRequests()).toHaveLength(1);
  });

  test('a subscription usage limit: wiggum reads the reset time Claude Code reports', async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 3 * 3600;
    const limit = apiError(429, 'Rate limited', {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(resetsAt),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    });
    // A reset three hours away is past usage_limit_max_wait, so the task is rejected at once
    // instead of waiting: the report names the reset time, which proves it was read.
    const s = await setup([limit], {
      task: OPEN_TASK,
      auth: { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-test' },
      config: { persistence_loop: { usage_limit_max_wait: '1h' } },
    });
    const report = await s.runToRejected();
    const history = s.history();
    expect(history.map((record) => [record.outcome, record.action])).toEqual([['usage-limit', 'reject']]);
    expect(history[0]?.error?.code).toBe('E_HARNESS_USAGE_LIMIT');
    expect(report).toContain("You've hit your 5-hour limit");
    expect(report).toContain(new Date(resetsAt * 1000).toISOString());
  });
});
