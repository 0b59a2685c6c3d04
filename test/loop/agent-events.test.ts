import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { LoopEvent } from '../../src/loop/events.js';
import { AccountPauses } from '../../src/loop/account-pauses.js';
import { runTask } from '../../src/loop/run-task.js';
import { parseTask } from '../../src/task/parse.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { FAKE_AGENT, makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { vaultRunHost } from '../../src/vault/run-host.js';

/**
 * What the loop does with the events of a structured agent: the fake agent (a real executable)
 * prints Claude Code's stream JSON through a harness of kind `claude`.
 */

const TASK = '---\ntitle: Dark mode\n---\n# Dark mode\n\n- [ ] US-001 Theme context\n';

/** A Claude Code result line: a success with this usage, or (`error`) a failed API call. */
function resultLine(
  usage: { input: number; output: number; costUsd?: number },
  result = 'worked on it',
  sessionId = 'sess-1',
): string {
  return `${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result, session_id: sessionId, total_cost_usd: usage.costUsd, usage: { input_tokens: usage.input, cache_read_input_tokens: 10, output_tokens: usage.output } })}\n`;
}

async function claudeVault(fake: Record<string, string>, loop: Record<string, unknown> = {}): Promise<TestVault> {
  return makeVault({
    config: {
      persistence_loop: loop,
      harness: { default: 'fakeclaude' },
      harnesses: { fakeclaude: { kind: 'claude', command: FAKE_AGENT, env: fake } },
    },
  });
}

async function run(
  vault: TestVault,
  file: string,
  shared: { pauses?: AccountPauses; onEvent?: (event: LoopEvent) => void } = {},
) {
  const { logger } = captureLogger();
  const request = {
    file,
    stream: null,
    signal: new AbortController().signal,
    ...(shared.onEvent === undefined ? {} : { onEvent: shared.onEvent }),
  };
  const deps = {
    config: vault.config,
    host: vaultRunHost(vault.layout, shared.pauses === undefined ? {} : { pauses: shared.pauses }),
    clock: new FakeClock(),
    random: () => 0.5,
    logger,
    env: process.env,
  };
  const result = await runTask(request, deps);
  return {
    result,
    history: historyOf(vault.layout.sessions, result.taskId ?? ''),
    text: existsSync(result.file) ? readFileSync(result.file, 'utf8') : '',
  };
}

function stateData(text: string): Record<string, unknown> {
  const parsed = parseTask('t.md', text);
  if (!parsed.ok) throw new Error('the task file does not parse');
  return parsed.task.frontmatter.persistence_loop?.checkpoint?.state_data ?? {};
}

describe('events of a structured agent', () => {
  test('a refused key that the CLI would retry for minutes ends the run at its first retry line: Rejected, one attempt', async () => {
    const retryLine = JSON.stringify({
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 10,
      retry_delay_ms: 1000,
      error_status: 401,
      error: 'authentication_failed',
      session_id: 's-auth',
    });
    // `hang` would keep the agent silent for good: only wiggum stopping it ends this run.
    const vault = await claudeVault({ FAKE_PRINT: `${retryLine}\n`, FAKE_MODE: 'hang' });
    const ran = await run(vault, vault.task('dark-mode', TASK));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_HARNESS_AUTH' });
    expect(ran.result.reason).toMatch(/could not authenticate.*ANTHROPIC_API_KEY/);
    expect(ran.history).toHaveLength(1);
    expect(ran.history[0]).toMatchObject({
      outcome: 'hard',
      error: { code: 'E_HARNESS_AUTH' },
      agentSessionId: 's-auth',
    });
  });

  test('usage reaches the history line: tokens with the cached ones, cost and the agent session id', async () => {
    const vault = await claudeVault(
      { FAKE_PRINT: resultLine({ input: 40, output: 20, costUsd: 0.01 }), FAKE_COMPLETE_AFTER: '3' },
      { max_iterations: 1 },
    );
    const ran = await run(vault, vault.task('dark-mode', TASK));
    expect(ran.history[0]).toMatchObject({
      agentSessionId: 'sess-1',
      usage: { inputTokens: 50, outputTokens: 20, cacheReadTokens: 10, cacheWriteTokens: 0, costUsd: 0.01 },
    });
    // The agent's CPU and memory were measured over its process tree and recorded (how much is the
    // machine's business: npm run bench reports it).
    expect(ran.history[0]?.resources?.peakRssBytes).toBeGreaterThan(0);
    expect(ran.history[0]?.resources?.cpuMs).toBeGreaterThanOrEqual(0);
    // The Rejected report (max_iterations) shows the totals.
    expect(ran.text).toMatch(
      /- Used: 70 tokens \(50 in \/ 20 out\) · \$0\.0100 · agent time \d+(\.\d)?s( · CPU \d+\.\d s)? · peak memory \d+ MB\./,
    );
    expect(stateData(ran.text)).toMatchObject({ spent: { input_tokens: 50, output_tokens: 20, cost_usd: 0.01 } });
  });

  test('max_tokens: the task is rejected with E_BUDGET once its runs used the budget, and the totals are in the checkpoint', async () => {
    const vault = await claudeVault({ FAKE_PRINT: resultLine({ input: 30, output: 20 }), FAKE_COMPLETE_AFTER: '10' });
    const ran = await run(
      vault,
      vault.task(
        'dark-mode',
        `---\ntitle: Dark mode\nmax_tokens: 100\n---\n# Dark mode\n\n- [ ] US-001 Theme context\n`,
      ),
    );
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_BUDGET', iterations: 2 });
    expect(ran.result.reason).toContain('the task used 120 tokens, its budget is 100 (max_tokens), after 2 iterations');
    expect(ran.history).toHaveLength(2);
    expect(stateData(ran.text)).toMatchObject({ spent: { input_tokens: 80, output_tokens: 40 } });
    expect(ran.text).toContain('max_cost_usd');
  });

  test('max_cost_usd from the config rejects the task once the reported cost reaches it', async () => {
    const vault = await claudeVault(
      { FAKE_PRINT: resultLine({ input: 1, output: 1, costUsd: 0.5 }), FAKE_COMPLETE_AFTER: '10' },
      { budget: { max_cost_usd: 1 } },
    );
    const ran = await run(vault, vault.task('dark-mode', TASK));
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_BUDGET', iterations: 2 });
    expect(ran.result.reason).toContain('the task cost $1.0000, its budget is $1.00 (max_cost_usd)');
  });

  test('max_duration stops a run that would take the task past it, and rejects the task with E_BUDGET', async () => {
    // The agent would stay silent for a minute; the task may use one second of agent time.
    const vault = await claudeVault({ FAKE_MODE: 'sleep', FAKE_SLEEP_MS: '60000' });
    const ran = await run(
      vault,
      vault.task(
        'dark-mode',
        `---\ntitle: Dark mode\nmax_duration: 1s\n---\n# Dark mode\n\n- [ ] US-001 Theme context\n`,
      ),
    );
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_BUDGET' });
    expect(ran.result.reason).toContain("used up the task's max_duration (1 s of agent time)");
    expect(ran.history).toHaveLength(1);
    expect(ran.history[0]?.durationMs).toBeLessThan(30_000);
  });

  test('the totals survive a restart: a task checkpointed with spent tokens starts from them', async () => {
    const vault = await claudeVault({ FAKE_PRINT: resultLine({ input: 30, output: 20 }), FAKE_COMPLETE_AFTER: '10' });
    const checkpointed = [
      '---',
      'title: Dark mode',
      'max_tokens: 100',
      'persistence_loop:',
      '  status: interrupted',
      '  session: s1',
      '  started: 2026-11-23T10:00:00Z',
      '  iteration: 1',
      '  max_iterations: 100',
      '  checkpoint:',
      '    completed_steps: []',
      '    current_step: US-001',
      '    state_data: {attempt: 0, active_ms: 1000, no_progress: 0, usage_waits: 0, warned: false, spent: {input_tokens: 60, output_tokens: 30, agent_ms: 1000, cpu_ms: 0, peak_rss_mb: 0}}',
      '    timestamp: 2026-11-23T10:01:00Z',
      '---',
      '# Dark mode',
      '',
      '- [ ] US-001 Theme context',
      '',
    ].join('\n');
    const ran = await run(vault, vault.task('dark-mode', checkpointed));
    // 90 spent before the restart, 60 in the one run after it (10 of them cached): over 100.
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_BUDGET', iterations: 2 });
    expect(ran.history).toHaveLength(1);
    expect(stateData(ran.text)).toMatchObject({ spent: { input_tokens: 100, output_tokens: 50 } });
  });
});

describe('a usage limit holds every task on the harness', () => {
  test('the task whose agent hits it waits for the reset, checkpointed as waiting, and pauses the harness', async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 3 * 3600;
    const lines = [
      {
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', resetsAt, rateLimitType: 'five_hour' },
        session_id: 's-limit',
      },
      {
        type: 'result',
        subtype: 'success',
        is_error: true,
        api_error_status: 429,
        result: "You've hit your session limit · resets 4:11am (UTC)",
        session_id: 's-limit',
      },
    ];
    const vault = await claudeVault(
      { FAKE_PRINT: `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`, FAKE_MODE: 'fail' },
      { retry: { max_attempts: 1 } },
    );
    const pauses = new AccountPauses();
    const file = vault.task('dark-mode', TASK);
    const checkpoints: string[] = [];
    const ran = await run(vault, file, {
      pauses,
      onEvent: (event) => event.type === 'waiting' && checkpoints.push(readFileSync(file, 'utf8')),
    });
    // It waited once for the reset, then gave up when the limit was hit again (max_attempts 1).
    expect(ran.result).toMatchObject({ status: 'rejected', code: 'E_HARNESS_USAGE_LIMIT' });
    expect(ran.history.map((record) => record.outcome)).toEqual(['usage-limit', 'usage-limit']);
    expect(checkpoints[0]).toContain('status: waiting');
    expect(stateData(checkpoints[0] ?? '')).toMatchObject({
      waiting_until: new Date(resetsAt * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
    expect(pauses.pausedUntil('fakeclaude', Date.now())).toBe(resetsAt * 1000);
  });

  test('another task on the paused harness waits with it instead of running (and burning attempts)', async () => {
    const vault = await claudeVault({
      FAKE_PRINT: resultLine({ input: 1, output: 1 }, 'done\n<promise>COMPLETE</promise>'),
      FAKE_COMPLETE_AFTER: '1',
    });
    const pauses = new AccountPauses();
    const until = Date.now() + 2 * 3600_000;
    pauses.pause('fakeclaude', until);
    const file = vault.task('dark-mode', TASK);
    const waits: LoopEvent[] = [];
    const checkpoints: string[] = [];
    const ran = await run(vault, file, {
      pauses,
      onEvent: (event) => {
        if (event.type !== 'waiting') return;
        waits.push(event);
        checkpoints.push(readFileSync(file, 'utf8'));
      },
    });
    expect(waits).toEqual([
      {
        type: 'waiting',
        taskId: 'dark-mode',
        untilMs: until,
        why: 'usage-limit',
        harness: expect.any(String) as unknown,
      },
    ]);
    expect(checkpoints[0]).toContain('status: waiting');
    // Its first run came after the wait, and it was not a retry.
    expect(ran.history.map((record) => [record.iteration, record.attempt])).toEqual([[1, 0]]);
    expect(Date.parse(ran.history[0]?.startedAt ?? '')).toBeGreaterThanOrEqual(until - 1000);
  });
});

describe('a task whose ending cannot be written', () => {
  test('is never reported done: it stays in Approved/ untouched, and the run says why', async () => {
    const dir = tempDir('wiggum-breaker-');
    const agent = join(dir, 'breaks-the-task.sh');
    // Claims completion, but first leaves the task file in a state that does not parse.
    writeFileSync(
      agent,
      `#!/bin/sh\nprintf -- '---\\ntitle: [broken\\n---\\nDark mode\\n' > "$WIGGUM_TASK_FILE"\necho '<promise>COMPLETE</promise>'\n`,
    );
    chmodSync(agent, 0o755);
    // The agent stands for an editor breaking the file mid-run: unconfined, since a confined agent
    // sees the task file read-only (test/sandbox/escape.test.ts).
    const vault = await makeVault({
      config: {
        harness: { default: 'breaker' },
        harnesses: { breaker: { kind: 'command', command: agent, sandbox: { mode: 'off' } } },
      },
    });
    const file = vault.task('dark-mode', '---\ntitle: Dark mode\n---\nDark mode, no checklist.\n');
    const ran = await run(vault, file);
    expect(ran.result).toMatchObject({ status: 'interrupted', file });
    expect(ran.result.reason).toMatch(
      /is complete, but its file could not be updated, so it stays in Approved\/dark-mode\.md/,
    );
    expect(existsSync(join(vault.layout.done, 'dark-mode.md'))).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('---\ntitle: [broken\n---\nDark mode\n');
  });
});
