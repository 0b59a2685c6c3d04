import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { IterationRecord } from '../../src/memory/history.js';
import {
  INSTALL_AGENT_CLIS,
  PROMISE,
  agentCli,
  agentSandbox,
  expectDarkModeCommitted,
  expectCompletedOnce,
  expectRetriedThenDone,
  requireRunnable,
  runToAuthRejection,
} from '../helpers/agent-sandbox.js';
import type { AgentSandbox } from '../helpers/agent-sandbox.js';
import * as anthropic from '../helpers/anthropic-server.js';
import * as gemini from '../helpers/gemini-server.js';
import * as openai from '../helpers/openai-server.js';
import type { JsonRequest } from '../helpers/scripted-server.js';
import { claudeApi, codexApi, geminiApi, markPassing, opencodeApi, withPrd } from '../helpers/agent-apis.js';
import type { ScriptedApi } from '../helpers/agent-apis.js';

/**
 * The real agent CLIs (pinned in test/agent-clis), each run by the built `wiggum run` with its
 * shipped harness args against a scripted model API on 127.0.0.1: real tool calls in a real git
 * repository, real output, real failure texts. Nothing leaves the machine, and each CLI's own
 * retries are off where it has a setting for them, so wiggum's retry is what is tested.
 *
 * One scenario is shared by every CLI (a table row each): the agent commits, marks its story
 * passing and prints the promise over several lines → Done; a refused key → Rejected with what to
 * do. The failures only one CLI can be made to show follow, under that CLI's name.
 */

/** The shared scenario's script, for one CLI: `prd` is read from the first prompt. */
interface DoneRun {
  api: ScriptedApi;
  /** prd.json's path, once the first turn has read it from the prompt. */
  prd: () => string;
}

interface AgentCliCase {
  /** As the CLI calls itself. */
  name: string;
  harness: 'claude' | 'codex' | 'gemini' | 'opencode';
  /** The task names its harness; without it, the sandbox's default (the same harness) is used. */
  namesHarness: boolean;
  /** The shared scenario's API: implement and commit, mark the story passing, print the promise. */
  serveDone(): Promise<DoneRun>;
  /** Model turns the shared scenario takes. */
  doneTurns: number;
  /** The header that carries the key, and the key the API sees. */
  keyHeader: [name: string, value: string];
  /** Tokens the history sums for the iteration, and the agent's session id when it is no UUID. */
  tokens: { input: number; output: number };
  sessionId?: RegExp;
  /** The iteration's cost is recorded (the CLI reports one). */
  reportsCost: boolean;
  /** What the live stream shows, as readable lines. */
  stdoutShows(prd: string): string[];
  /** What else this CLI's run proves (its tool results, its model, its commits). */
  alsoDone?(api: ScriptedApi, prd: string, history: IterationRecord[]): void;
  /** The API refuses the key: the message it sends, what the report tells the user, the CLI's exit code. */
  serveAuthFailure(): Promise<ScriptedApi>;
  authReportSays: string[];
  authExitCode?: number;
  /** Requests the API saw in a refused run: one, no retry. */
  requestsOf(api: ScriptedApi): number;
}

beforeAll(() => {
  // Each package's postinstall puts its native binary in place of a stub (claude, opencode).
  for (const cli of ['claude', 'codex', 'gemini', 'opencode'] as const)
    requireRunnable(agentCli(cli), INSTALL_AGENT_CLIS);
});

/** prd.json with every story passing, as the agent writes it back. */
function allPassing(prd: string): string {
  const data = JSON.parse(readFileSync(prd, 'utf8')) as { userStories: { passes: boolean }[] };
  for (const story of data.userStories) story.passes = true;
  return `${JSON.stringify(data, null, 2)}\n`;
}

const COMMIT = `printf 'dark mode\\n' >> app.txt && git commit -q -am "feat: US-001 - Dark mode toggle"`;

/** What a CLI sent back for the tool calls of the previous turn, Messages API style (`!` before a failed one). */
function toolResults(request: JsonRequest): string[] {
  const last = (request.body?.['messages'] as { content?: unknown }[] | undefined)?.at(-1);
  if (!Array.isArray(last?.content)) return [];
  return (last.content as { type?: unknown; content?: unknown; is_error?: unknown }[])
    .filter((block) => block.type === 'tool_result')
    .map(
      (block) =>
        `${block.is_error === true ? '!' : ''}${typeof block.content === 'string' ? block.content : JSON.stringify(block.content)}`,
    );
}

const CASES: AgentCliCase[] = [
  {
    name: 'Claude Code',
    harness: 'claude',
    namesHarness: false,
    serveDone: () =>
      withPrd(async (prd, read) => ({
        prd,
        api: await claudeApi([
          (request) => {
            read(anthropic.userText(request));
            return anthropic.reply('I will implement US-001.', anthropic.bash(COMMIT, 'Implement and commit'));
          },
          () => anthropic.reply({ type: 'tool_use', name: 'Read', input: { file_path: prd() } }),
          () => anthropic.reply(anthropic.write(prd(), allPassing(prd()))),
          anthropic.reply(PROMISE),
        ]),
      })),
    doneTurns: 4,
    keyHeader: ['x-api-key', 'test'],
    tokens: { input: 400, output: 80 },
    reportsCost: true,
    stdoutShows: (prd) => ['→ Bash: printf', `→ Write: ${prd}`, '✓ Claude Code finished'],
    alsoDone: (api, _prd, history) => {
      // No tool call failed.
      const main = api.turns();
      const failed = main.flatMap(
        (request) => JSON.stringify(request.body?.['messages'] ?? []).match(/"is_error":true/g) ?? [],
      );
      expect(failed, JSON.stringify(main.at(-1)?.body?.['messages'], null, 1)).toEqual([]);
      expect(history.flatMap((record) => record.git?.commits ?? [])).toEqual([
        expect.stringMatching(/^[0-9a-f]+ feat: US-001 - Dark mode toggle$/),
      ]);
    },
    serveAuthFailure: () => claudeApi([anthropic.apiError(401, 'invalid x-api-key')]),
    authReportSays: ['Invalid API key', 'set ANTHROPIC_API_KEY', 'claude login'],
    requestsOf: (api) => api.turns().length,
  },
  {
    name: 'Codex',
    harness: 'codex',
    namesHarness: true,
    serveDone: () =>
      withPrd(async (prd, read) => ({
        prd,
        api: await codexApi([
          (request) => {
            read(openai.inputText(request));
            return openai.reply(openai.say('I will implement US-001.'), openai.exec(COMMIT));
          },
          () => openai.reply(openai.exec(markPassing(prd()))),
          openai.reply(openai.say(PROMISE)),
        ]),
      })),
    doneTurns: 3,
    keyHeader: ['authorization', 'Bearer test-key'],
    tokens: { input: 3000, output: 60 },
    reportsCost: false,
    stdoutShows: () => ['→ shell: /bin/bash -lc', 'I will implement US-001.'],
    alsoDone: (api) => {
      // Both shell calls succeeded.
      const turns = api.turns() as openai.RecordedRequest[];
      expect(openai.callOutputs(turns[1]!).join('\n')).toContain('Process exited with code 0');
      expect(openai.callOutputs(turns[2]!).join('\n')).toContain('Process exited with code 0');
    },
    serveAuthFailure: () => codexApi([openai.apiError(401, 'Incorrect API key provided: test-key.')]),
    authReportSays: ['Incorrect API key provided', 'codex login'],
    requestsOf: (api) => api.turns().length,
  },
  {
    name: 'Gemini CLI',
    harness: 'gemini',
    namesHarness: true,
    serveDone: () =>
      withPrd(async (prd, read) => ({
        prd,
        api: await geminiApi([
          (request) => {
            read(gemini.userText(request));
            return gemini.reply(gemini.say('I will implement US-001.'), gemini.shell(COMMIT, 'Implement and commit'));
          },
          // prd.json lies outside the workdir: Gemini's file tools reach it only through
          // --include-directories {session_dir}.
          () => gemini.reply(gemini.writeFile(prd(), allPassing(prd()))),
          gemini.reply(gemini.say(PROMISE)),
        ]),
      })),
    doneTurns: 3,
    keyHeader: ['x-goog-api-key', 'test-key'],
    // Gemini sums the three turns: 3 × 1000 in, 3 × 20 out.
    tokens: { input: 3000, output: 60 },
    reportsCost: false,
    stdoutShows: () => ["printf 'dark mode\\n' >> app.txt", 'I will implement US-001.', '✓ Gemini CLI finished'],
    alsoDone: (api, prd) => {
      const turns = api.turns() as gemini.RecordedRequest[];
      // The named model: no router call, no other model.
      expect((api as Awaited<ReturnType<typeof geminiApi>>).requests).toHaveLength(3);
      expect(turns.map((turn) => turn.model)).toEqual([
        gemini.GEMINI_TEST_MODEL,
        gemini.GEMINI_TEST_MODEL,
        gemini.GEMINI_TEST_MODEL,
      ]);
      // A failed shell call's output names its `Exit Code:` (non-zero only) or `Error:`; a failed tool has an `error`.
      const [shellCall, writeCall] = turns.slice(1).map(gemini.toolResponses);
      expect(shellCall).toEqual([{ output: expect.stringContaining('Output: (empty)') as string }]);
      expect(shellCall?.[0]?.['output']).not.toMatch(/Exit Code:|Error:/);
      expect(writeCall).toEqual([{ output: expect.stringContaining(`Successfully overwrote file: ${prd}`) as string }]);
    },
    serveAuthFailure: () => geminiApi([gemini.apiError(401, 'API key not valid. Please pass a valid API key.')]),
    authReportSays: ['API key not valid', 'GEMINI_API_KEY'],
    authExitCode: 145,
    requestsOf: (api) => (api as Awaited<ReturnType<typeof geminiApi>>).requests.length,
  },
  {
    name: 'OpenCode',
    harness: 'opencode',
    namesHarness: true,
    serveDone: () =>
      withPrd(async (prd, read) => ({
        prd,
        api: await opencodeApi([
          (request) => {
            read(anthropic.userText(request));
            return anthropic.reply('I will implement US-001.', {
              type: 'tool_use',
              name: 'bash',
              input: { command: COMMIT, description: 'Implement and commit' },
            });
          },
          // prd.json lies outside the workdir: OpenCode's file tools need the `external_directory`
          // permission there, which --auto grants (run unattended, it would otherwise be refused).
          () => anthropic.reply({ type: 'tool_use', name: 'read', input: { filePath: prd() } }),
          () =>
            anthropic.reply({
              type: 'tool_use',
              name: 'write',
              input: { filePath: prd(), content: allPassing(prd()) },
            }),
          anthropic.reply(PROMISE),
        ]),
      })),
    doneTurns: 4,
    keyHeader: ['x-api-key', 'test-key'],
    // OpenCode reports tokens per step; wiggum sums the four: 4 × 100 in, 4 × 20 out.
    tokens: { input: 400, output: 80 },
    sessionId: /^ses_\w+$/,
    reportsCost: true,
    stdoutShows: () => ["printf 'dark mode\\n' >> app.txt", 'I will implement US-001.'],
    alsoDone: (api) => {
      // Every tool call succeeded.
      expect(api.turns().slice(1).map(toolResults)).toEqual([
        ['(no output)'],
        [expect.stringContaining('"passes": false')],
        ['Wrote file successfully.'],
      ]);
    },
    serveAuthFailure: () => opencodeApi([anthropic.apiError(401, 'invalid x-api-key')]),
    authReportSays: ['invalid x-api-key', 'opencode auth login'],
    authExitCode: 1,
    requestsOf: (api) => api.turns().length,
  },
];

let served: ScriptedApi | null = null;
afterEach(async () => {
  await served?.close();
  served = null;
});

/** The sandbox of one CLI's run against `api` (closed after the test); `config` is merged over the sandbox's. */
function sandbox(
  cli: Pick<AgentCliCase, 'harness' | 'namesHarness'>,
  api: ScriptedApi,
  task: 'open' | 'finished',
  config?: Record<string, unknown>,
): Promise<AgentSandbox> {
  served = api;
  const command = agentCli(cli.harness);
  return agentSandbox({
    prefix: `wiggum-${cli.harness}-`,
    harness: cli.harness,
    harnessConfig: (paths) => ({ command, env: api.env(paths) }),
    task: taskText(cli, task),
    config,
  });
}

/** The task `dark-mode` with its one story: still to do (`open`), or already passing (`finished`). */
function taskText(cli: Pick<AgentCliCase, 'harness' | 'namesHarness'>, task: 'open' | 'finished'): string {
  const harness = cli.namesHarness ? `harness: ${cli.harness}\n` : '';
  return task === 'open'
    ? `---\ntitle: Dark mode\nworkdir: WORKDIR\n${harness}---\n# Dark mode\n\nAdd a dark mode.\n\n- [ ] US-001 Dark mode toggle\n`
    : `---\ntitle: Dark mode\nworkdir: WORKDIR\n${harness}---\n# Dark mode\n\nCheck the dark mode once more.\n\n- [x] US-001 Dark mode toggle\n`;
}

/** Fast backoff, so that a retry takes milliseconds. */
const QUICK_RETRY = { persistence_loop: { retry: { base_delay: '10ms', max_delay: '20ms' } } };

describe.each(CASES)('wiggum run with the real $name CLI', (cli) => {
  test('real tool calls: a commit, a story marked passing, a promise over several lines → Done', async () => {
    const { api, prd } = await cli.serveDone();
    const s = await sandbox(cli, api, 'open');
    const result = await s.runToDone();
    expect(api.remainingTurns()).toBe(0);

    // The prompt reached the API, with the task, the memory paths and the key.
    const turns = api.turns();
    expect(turns).toHaveLength(cli.doneTurns);
    expect(api.promptOf(turns[0]!)).toContain('## Task: Dark mode (dark-mode)');
    expect(turns[0]?.headers[cli.keyHeader[0]]).toBe(cli.keyHeader[1]);

    expectDarkModeCommitted(s, prd());
    // The task completed and each iteration is recorded once; a loaded machine may take more runs.
    const history = s.history();
    const last = expectCompletedOnce(history, cli.tokens, cli.sessionId);
    cli.alsoDone?.(api, prd(), history);
    if (cli.reportsCost) expect(last.usage?.costUsd).toBeGreaterThan(0);

    // The live stream is readable lines, not JSON.
    for (const shown of cli.stdoutShows(prd())) expect(result.stdout).toContain(shown);
    expect(result.stdout).not.toContain('{"type"');
  });

  test('401: a hard failure after one attempt, rejected with what to do', async () => {
    const api = await cli.serveAuthFailure();
    const s = await sandbox(cli, api, 'open');
    const report = await runToAuthRejection(s);
    for (const said of cli.authReportSays) expect(report).toContain(said);
    if (cli.authExitCode !== undefined) expect(s.history()[0]?.exitCode).toBe(cli.authExitCode);
    expect(cli.requestsOf(api)).toBe(1);
  });
});

const claude = CASES.find((cli) => cli.harness === 'claude')!;
const codex = CASES.find((cli) => cli.harness === 'codex')!;

describe('transient failures the CLI passes on at once, retried by wiggum', () => {
  test.each<[string, AgentCliCase, () => Promise<ScriptedApi>, RegExp, string]>([
    [
      'Claude Code, rate limit (429)',
      claude,
      () =>
        claudeApi([
          anthropic.apiError(429, 'Number of request tokens has exceeded your per-minute rate limit'),
          anthropic.reply(PROMISE),
        ]),
      /rate limit was hit \(429\)/,
      'E_HARNESS_RATE_LIMIT',
    ],
    [
      'Claude Code, overloaded (529)',
      claude,
      () => claudeApi([anthropic.apiError(529, 'Overloaded'), anthropic.reply(PROMISE)]),
      /overloaded \(529\)/,
      'E_HARNESS_OVERLOADED',
    ],
    [
      'Codex, 429',
      codex,
      () => codexApi([openai.apiError(429, 'Rate limit reached for requests'), openai.reply(openai.say(PROMISE))]),
      /429 Too Many Requests/,
      'E_HARNESS_RATE_LIMIT',
    ],
  ])('%s, then success', async (_name, cli, serve, message, code) => {
    const s = await sandbox(cli, await serve(), 'finished', QUICK_RETRY);
    await s.runToDone();
    const history = s.history();
    expectRetriedThenDone(history, code);
    expect(history[0]?.error?.message).toMatch(message);
  });
});

describe('Claude Code only', () => {
  test('a subscription usage limit: wiggum reads the reset time Claude Code reports', async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 3 * 3600;
    const limit = anthropic.apiError(429, 'Rate limited', {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(resetsAt),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    });
    // A reset three hours away is past usage_limit_max_wait, so the task is rejected at once
    // instead of waiting: the report names the reset time, which proves it was read.
    const api = await claudeApi([limit], { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-test' });
    const s = await sandbox(claude, api, 'open', { persistence_loop: { usage_limit_max_wait: '1h' } });
    const report = await s.runToRejected();
    const history = s.history();
    expect(history.map((record) => [record.outcome, record.action])).toEqual([['usage-limit', 'reject']]);
    expect(history[0]?.error?.code).toBe('E_HARNESS_USAGE_LIMIT');
    expect(report).toContain("You've hit your 5-hour limit");
    expect(report).toContain(new Date(resetsAt * 1000).toISOString());
  });
});

describe('Codex only', () => {
  test('503 server_is_overloaded ("Selected model is at capacity"): waited out past the retries, no iteration used, never stuck', async () => {
    const overloaded = openai.apiError(
      503,
      'Our servers are currently overloaded. Please try again later.',
      'server_is_overloaded',
    );
    const api = await codexApi([overloaded, overloaded, overloaded, openai.reply(openai.say(PROMISE))]);
    const s = await sandbox(codex, api, 'finished', {
      persistence_loop: { no_progress_limit: 2, retry: { max_attempts: 1, base_delay: '10ms', max_delay: '20ms' } },
    });
    await s.runToDone();
    const history = s.history();
    // One retry, then the harness is in an outage: probed until it answers, all within iteration 1.
    expect(history.map((record) => [record.iteration, record.attempt, record.outcome, record.action])).toEqual([
      [1, 0, 'transient', 'retry'],
      [1, 1, 'transient', 'wait'],
      [1, 2, 'transient', 'wait'],
      [1, 3, 'complete', 'done'],
    ]);
    expect(history[0]?.error).toMatchObject({
      code: 'E_HARNESS_OVERLOADED',
      message: expect.stringContaining('Selected model is at capacity') as unknown,
    });
    expect(history[1]?.nextState).toContain('harness outage');
    expect(readFileSync(join(s.vaultRoot, 'Done', 'dark-mode.md'), 'utf8')).not.toContain('E_NO_PROGRESS');
  });

  const limited = (): openai.ScriptError =>
    openai.apiError(429, 'The usage limit has been reached', 'usage_limit_reached');

  test('a usage limit without a reset time: probed with backoff past retry.max_attempts until it lifts', async () => {
    const api = await codexApi([limited(), limited(), limited(), openai.reply(openai.say(PROMISE))]);
    const s = await sandbox(codex, api, 'finished', {
      persistence_loop: {
        usage_limit_max_wait: '1m',
        retry: { max_attempts: 1, base_delay: '10ms', max_delay: '20ms' },
      },
    });
    await s.runToDone();
    const history = s.history();
    expect(history.map((record) => [record.iteration, record.outcome, record.action])).toEqual([
      [1, 'usage-limit', 'wait'],
      [1, 'usage-limit', 'wait'],
      [1, 'usage-limit', 'wait'],
      [1, 'complete', 'done'],
    ]);
    expect(history[0]?.error?.message).toContain('it did not say when it resets');
  });

  test('a usage limit without a reset time that outlasts usage_limit_max_wait: rejected, saying so', async () => {
    const api = await codexApi(Array.from({ length: 40 }, limited));
    const s = await sandbox(codex, api, 'finished', {
      persistence_loop: {
        usage_limit_max_wait: '300ms',
        retry: { max_attempts: 1, base_delay: '50ms', max_delay: '50ms' },
      },
    });
    const report = await s.runToRejected();
    expect(report).toContain('E_HARNESS_USAGE_LIMIT');
    expect(report).toContain('persistence_loop.usage_limit_max_wait');
  });
});
