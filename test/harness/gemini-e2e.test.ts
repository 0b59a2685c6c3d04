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
import {
  GEMINI_TEST_MODEL,
  apiError,
  reply,
  say,
  shell,
  startGeminiServer,
  toolResponses,
  userText,
  writeFile,
  writeGeminiHome,
} from '../helpers/gemini-server.js';
import type { GeminiServer, ScriptTurn } from '../helpers/gemini-server.js';

/**
 * The real Gemini CLI (pinned in test/agent-clis), run by the built `wiggum run` with the default
 * `gemini` harness args, against a scripted Gemini API on 127.0.0.1: real `run_shell_command` and
 * `write_file` calls in a real git repository, real stream-json events, real failure texts.
 * settings.json picks the API key, turns usage statistics off and makes one attempt per request
 * (Gemini's own retries take minutes); naming the model in GEMINI_MODEL skips the router call the
 * `auto` model makes before every turn; GEMINI_CLI_NO_RELAUNCH keeps Gemini from restarting itself
 * in a child process.
 */
const GEMINI = agentCli('gemini');

beforeAll(() => {
  requireRunnable(GEMINI, INSTALL_AGENT_CLIS);
});

let server: GeminiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function setup(script: ScriptTurn[], options: { task: string }): Promise<AgentSandbox> {
  const api = await startGeminiServer(script);
  server = api;
  return agentSandbox({
    prefix: 'wiggum-gemini-',
    harness: 'gemini',
    harnessConfig: ({ home, tmp }) => ({
      command: GEMINI,
      env: {
        HOME: writeGeminiHome(home),
        GOOGLE_GEMINI_BASE_URL: api.url,
        GEMINI_API_KEY: 'test-key',
        GEMINI_MODEL: GEMINI_TEST_MODEL,
        GEMINI_CLI_NO_RELAUNCH: 'true',
        // Gemini writes its error reports to TMPDIR.
        TMPDIR: tmp,
      },
    }),
    task: options.task,
  });
}

const OPEN_TASK =
  '---\ntitle: Dark mode\nworkdir: WORKDIR\nharness: gemini\n---\n# Dark mode\n\nAdd a dark mode.\n\n- [ ] US-001 Dark mode toggle\n';

describe('wiggum run with the real Gemini CLI', () => {
  test('real tool calls: a commit, a story marked passing, a promise over several lines → Done', async () => {
    let prd = '';
    const s = await setup(
      [
        (request) => {
          prd = prdPath(userText(request));
          return reply(
            say('I will implement US-001.'),
            shell(
              `printf 'dark mode\\n' >> app.txt && git commit -q -am "feat: US-001 - Dark mode toggle"`,
              'Implement and commit',
            ),
          );
        },
        // prd.json lies outside the workdir: Gemini's file tools reach it only through
        // --include-directories {session_dir}.
        () => {
          const data = JSON.parse(readFileSync(prd, 'utf8')) as { userStories: { passes: boolean }[] };
          for (const story of data.userStories) story.passes = true;
          return reply(writeFile(prd, `${JSON.stringify(data, null, 2)}\n`));
        },
        reply(say(PROMISE)),
      ],
      { task: OPEN_TASK },
    );
    const result = await s.runToDone();
    expect(server?.remainingTurns()).toBe(0);

    // The prompt reached the API with the task and the key, for the named model; both tool calls succeeded.
    const turns = server?.turns() ?? [];
    expect(turns).toHaveLength(3);
    expect(userText(turns[0]!)).toContain('## Task: Dark mode (dark-mode)');
    expect(turns[0]?.headers['x-goog-api-key']).toBe('test-key');
    // The named model: no router call, no other model.
    expect(server?.requests).toHaveLength(3);
    expect(turns.map((turn) => turn.model)).toEqual([GEMINI_TEST_MODEL, GEMINI_TEST_MODEL, GEMINI_TEST_MODEL]);
    // A failed shell call's output names its `Exit Code:` (non-zero only) or `Error:`; a failed tool has an `error`.
    const [shellCall, writeCall] = turns.slice(1).map(toolResponses);
    expect(shellCall).toEqual([{ output: expect.stringContaining('Output: (empty)') as string }]);
    expect(shellCall?.[0]?.['output']).not.toMatch(/Exit Code:|Error:/);
    expect(writeCall).toEqual([{ output: expect.stringContaining(`Successfully overwrote file: ${prd}`) as string }]);

    expectDarkModeCommitted(s, prd);
    // Gemini sums the three turns: 3 × 1000 in, 3 × 20 out.
    expectOneCompleteIteration(s.history(), { input: 3000, output: 60 });

    // The live stream is readable lines, not JSON.
    expect(result.stdout).toContain("printf 'dark mode\\n' >> app.txt");
    expect(result.stdout).toContain('I will implement US-001.');
    expect(result.stdout).toContain('✓ Gemini CLI finished');
    expect(result.stdout).not.toContain('{"type"');
  });

  test('401: a hard failure after one attempt, rejected with what to do', async () => {
    const s = await setup([apiError(401, 'API key not valid. Please pass a valid API key.')], { task: OPEN_TASK });
    const report = await runToAuthRejection(s);
    expect(report).toContain('API key not valid');
    expect(report).toContain('GEMINI_API_KEY');
    expect(s.history()[0]?.exitCode).toBe(145);
    expect(server?.requests).toHaveLength(1);
  });
});
