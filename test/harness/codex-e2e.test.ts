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
import {
  apiError,
  callOutputs,
  exec,
  inputText,
  reply,
  say,
  startOpenAIServer,
  writeCodexHome,
} from '../helpers/openai-server.js';
import type { OpenAIServer, ScriptTurn } from '../helpers/openai-server.js';

/**
 * The real Codex CLI (pinned in test/agent-clis), run by the built `wiggum run` with the default
 * `codex` harness args, against a scripted Responses API on 127.0.0.1 (a `model_provider` in
 * CODEX_HOME/config.toml): real shell calls in a real git repository, real JSON events, real
 * failure texts. Codex's own retries are off, so wiggum's retry is what is tested.
 */
const CODEX = agentCli('codex');

beforeAll(() => {
  requireRunnable(CODEX, INSTALL_AGENT_CLIS);
});

let server: OpenAIServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function setup(
  script: ScriptTurn[],
  options: { task: string; config?: Record<string, unknown> },
): Promise<AgentSandbox> {
  const api = await startOpenAIServer(script);
  server = api;
  return agentSandbox({
    prefix: 'wiggum-codex-',
    harness: 'codex',
    harnessConfig: ({ home, tmp }) => ({
      command: CODEX,
      env: {
        CODEX_HOME: writeCodexHome(join(home, '.codex'), api),
        OPENAI_API_KEY: 'test-key',
        HOME: home,
        TMPDIR: tmp,
      },
    }),
    task: options.task,
    config: options.config,
  });
}

/** A shell command that sets `passes: true` on every story of a prd.json. */
function markPassing(prd: string): string {
  const script =
    'const fs=require("fs");const f=process.argv[1];const d=JSON.parse(fs.readFileSync(f,"utf8"));for(const s of d.userStories)s.passes=true;fs.writeFileSync(f,JSON.stringify(d,null,2)+"\\n")';
  return `node -e '${script}' '${prd}'`;
}

const OPEN_TASK =
  '---\ntitle: Dark mode\nworkdir: WORKDIR\nharness: codex\n---\n# Dark mode\n\nAdd a dark mode.\n\n- [ ] US-001 Dark mode toggle\n';
const FINISHED_TASK =
  '---\ntitle: Dark mode\nworkdir: WORKDIR\nharness: codex\n---\n# Dark mode\n\nCheck the dark mode once more.\n\n- [x] US-001 Dark mode toggle\n';

describe('wiggum run with the real Codex CLI', () => {
  test('real shell calls: a commit, a story marked passing, a promise over several lines → Done', async () => {
    let prd = '';
    const s = await setup(
      [
        (request) => {
          prd = prdPath(inputText(request));
          return reply(
            say('I will implement US-001.'),
            exec(`printf 'dark mode\\n' >> app.txt && git commit -q -am "feat: US-001 - Dark mode toggle"`),
          );
        },
        () => reply(exec(markPassing(prd))),
        reply(say(PROMISE)),
      ],
      { task: OPEN_TASK },
    );
    const result = await s.runToDone();
    expect(server?.remainingTurns()).toBe(0);

    // The prompt reached the API with the task and the key; both shell calls succeeded.
    const turns = server?.turns() ?? [];
    expect(turns).toHaveLength(3);
    expect(inputText(turns[0]!)).toContain('## Task: Dark mode (dark-mode)');
    expect(turns[0]?.headers['authorization']).toBe('Bearer test-key');
    expect(callOutputs(turns[1]!).join('\n')).toContain('Process exited with code 0');
    expect(callOutputs(turns[2]!).join('\n')).toContain('Process exited with code 0');

    expectDarkModeCommitted(s, prd);
    expectOneCompleteIteration(s.history(), { input: 3000, output: 60 });

    // The live stream is readable lines, not JSON.
    expect(result.stdout).toContain('→ shell: /bin/bash -lc');
    expect(result.stdout).toContain('I will implement US-001.');
    expect(result.stdout).not.toContain('{"type"');
  });

  test('429, then success: a transient failure, retried by wiggum', async () => {
    const s = await setup([apiError(429, 'Rate limit reached for requests'), reply(say(PROMISE))], {
      task: FINISHED_TASK,
      config: { persistence_loop: { retry: { base_delay: '10ms', max_delay: '20ms' } } },
    });
    await s.runToDone();
    const history = s.history();
    expectRetriedThenDone(history);
    expect(history[0]?.error?.message).toContain('429 Too Many Requests');
  });

  test('503 server_is_overloaded ("Selected model is at capacity"): waited out past the retries, no iteration used, never stuck', async () => {
    const overloaded = apiError(
      503,
      'Our servers are currently overloaded. Please try again later.',
      'server_is_overloaded',
    );
    const s = await setup([overloaded, overloaded, overloaded, reply(say(PROMISE))], {
      task: FINISHED_TASK,
      config: {
        persistence_loop: { no_progress_limit: 2, retry: { max_attempts: 1, base_delay: '10ms', max_delay: '20ms' } },
      },
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

  test('a usage limit without a reset time: probed with backoff past retry.max_attempts until it lifts', async () => {
    const limited = apiError(429, 'The usage limit has been reached', 'usage_limit_reached');
    const s = await setup([limited, limited, limited, reply(say(PROMISE))], {
      task: FINISHED_TASK,
      config: {
        persistence_loop: {
          usage_limit_max_wait: '1m',
          retry: { max_attempts: 1, base_delay: '10ms', max_delay: '20ms' },
        },
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
    const limited = apiError(429, 'The usage limit has been reached', 'usage_limit_reached');
    const s = await setup(
      Array.from({ length: 40 }, () => limited),
      {
        task: FINISHED_TASK,
        config: {
          persistence_loop: {
            usage_limit_max_wait: '300ms',
            retry: { max_attempts: 1, base_delay: '50ms', max_delay: '50ms' },
          },
        },
      },
    );
    const report = await s.runToRejected();
    expect(report).toContain('E_HARNESS_USAGE_LIMIT');
    expect(report).toContain('persistence_loop.usage_limit_max_wait');
  });

  test('401: a hard failure, rejected with what to do', async () => {
    const s = await setup([apiError(401, 'Incorrect API key provided: test-key.')], { task: OPEN_TASK });
    const report = await runToAuthRejection(s);
    expect(report).toContain('Incorrect API key provided');
    expect(report).toContain('codex login');
    expect(server?.turns()).toHaveLength(1);
  });
});
