import { describe, expect, test } from 'vitest';
import { WiggumError } from '../../src/errors.js';
import { codexDriver } from '../../src/harness/drivers/codex-driver.js';
import { processFailure } from '../../src/harness/drivers/driver.js';
import { driverFor } from '../../src/harness/drivers/registry.js';
import { containsPromise } from '../../src/loop/promise.js';
import { fixture, processResult, readOutput } from '../helpers/driver-output.js';

// Real output of codex-cli 0.169.0 (`exec --json`) against a scripted Responses API server; see
// test/fixtures/codex/README.md.
const codex = (name: string): Buffer => fixture('codex', name);

describe('the codex driver', () => {
  test('is the driver registered for kind codex', () => {
    expect(driverFor('codex')).toBe(codexDriver);
  });

  test('takes the final agent message, the thread id and the token usage', () => {
    const { report, shown } = readOutput(codexDriver, codex('complete.jsonl'));
    expect(report.finalMessage).toBe('Done.\n<promise>\n  COMPLETE\n</promise>');
    expect(containsPromise(report.finalMessage ?? '', 'COMPLETE')).toBe(true);
    expect(report.agentSessionId).toBe('01a20427-9ec4-7db1-976f-93b5c1ca2a55');
    expect(report.usage).toMatchObject({ inputTokens: 2400, outputTokens: 68 });
    expect(report.usage?.costUsd).toBeUndefined();
    expect(report.failure).toBeNull();
    expect(shown).toContain("→ shell: /bin/bash -lc 'echo hello > out.txt && cat out.txt'\n  ← hello\n");
    expect(shown).toContain('I will edit the file.\n');
    expect(shown).not.toContain('{"type"');
  });

  test('reads the same from chunks that split lines and characters', () => {
    const whole = readOutput(codexDriver, codex('complete.jsonl'));
    const chunked = readOutput(codexDriver, codex('complete.jsonl'), { size: 7 });
    expect(chunked.report).toEqual(whole.report);
    expect(chunked.shown).toBe(whole.shown);
  });

  test('an earlier agent message is not the final one', () => {
    const events = codex('complete.jsonl').toString().split('\n');
    const withoutLast = events.filter((line) => !line.includes('"item_3"')).join('\n');
    const { report } = readOutput(codexDriver, withoutLast);
    expect(report.finalMessage).toBe('I will edit the file.');
  });

  test('retry notices of a run that then succeeds are no failure', () => {
    const notice =
      '{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: error sending request)"}\n';
    const { report } = readOutput(codexDriver, notice + codex('complete.jsonl').toString());
    expect(report.failure).toBeNull();
    expect(report.finalMessage).toContain('<promise>');
  });

  test('without --json, the promise is looked for in stdout', () => {
    const { report, shown } = readOutput(codexDriver, 'some plain text\n<promise>COMPLETE</promise>\n');
    expect(report.finalMessage).toBeNull();
    expect(shown).toBe('some plain text\n<promise>COMPLETE</promise>\n');
  });

  test('a run with events but no agent message has an empty final message', () => {
    const { report } = readOutput(codexDriver, codex('rate-limit.jsonl'), { exitCode: 1 });
    expect(report.finalMessage).toBe('');
  });

  test('429 is a transient rate limit', () => {
    const { report } = readOutput(codexDriver, codex('rate-limit.jsonl'), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'transient', code: 'E_HARNESS_RATE_LIMIT' });
    expect(report.failure?.message).toContain('429 Too Many Requests');
  });

  test('a server error ("high demand") is transient', () => {
    const { report } = readOutput(codexDriver, codex('overload.jsonl'), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'transient', code: 'E_HARNESS_OVERLOADED' });
  });

  test('a run that ends while Codex waits for the network is a network failure', () => {
    const { report } = readOutput(codexDriver, codex('network.jsonl'), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'transient', code: 'E_HARNESS_NETWORK' });
  });

  test('401 is a hard auth failure that says how to fix it', () => {
    const { report } = readOutput(codexDriver, codex('auth.jsonl'), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_AUTH' });
    expect(report.failure?.message).toContain('401 Unauthorized');
    expect(report.failure?.message).toContain('codex login');
    expect(report.failure?.message).toContain('OPENAI_API_KEY');
  });

  test('a missing key variable is a hard auth failure', () => {
    const { report } = readOutput(codexDriver, codex('missing-key.jsonl'), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_AUTH' });
  });

  test('a usage limit waits until the local time Codex names', () => {
    // The fixture says "try again at 5:47 PM" (local time).
    const before = new Date(2026, 10, 22, 16, 47).getTime();
    const { report } = readOutput(codexDriver, codex('usage-limit.jsonl'), { exitCode: 1, endedAtMs: before });
    expect(report.failure).toMatchObject({
      kind: 'usage-limit',
      code: 'E_HARNESS_USAGE_LIMIT',
      resetAtMs: new Date(2026, 10, 22, 17, 47).getTime(),
    });
    const after = new Date(2026, 10, 22, 18, 0).getTime();
    expect(
      readOutput(codexDriver, codex('usage-limit.jsonl'), { exitCode: 1, endedAtMs: after }).report.failure?.resetAtMs,
    ).toBe(new Date(2026, 10, 23, 17, 47).getTime());
  });

  test('a usage limit days away names the date', () => {
    const message =
      'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at Nov 24th, 2026 4:47 PM.';
    const { report } = readOutput(
      codexDriver,
      `{"type":"turn.failed","error":{"message":${JSON.stringify(message)}}}\n`,
      { exitCode: 1, endedAtMs: new Date(2026, 10, 22, 16, 47).getTime() },
    );
    expect(report.failure).toMatchObject({ kind: 'usage-limit', resetAtMs: new Date(2026, 10, 24, 16, 47).getTime() });
  });

  test('a usage limit without a time waits with no reset time', () => {
    const message =
      'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again later.';
    const { report } = readOutput(
      codexDriver,
      `{"type":"turn.failed","error":{"message":${JSON.stringify(message)}}}\n`,
      { exitCode: 1 },
    );
    expect(report.failure).toMatchObject({ kind: 'usage-limit', resetAtMs: null });
  });

  test('an exhausted quota (billing) is hard: waiting will not help', () => {
    const { report } = readOutput(codexDriver, codex('quota.jsonl'), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_BILLING' });
  });

  test('outside a git repository without --skip-git-repo-check it says which flag is missing', () => {
    const { report } = readOutput(codexDriver, '', { exitCode: 1, stderr: codex('untrusted.stderr').toString() });
    expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_FATAL' });
    expect(report.failure?.message).toContain('--skip-git-repo-check');
  });

  test('a non-zero exit it cannot explain is left to the loop', () => {
    const { report } = readOutput(codexDriver, '{"type":"thread.started","thread_id":"t"}\n', {
      exitCode: 2,
      stderr: 'something odd\n',
    });
    expect(report.failure).toBeNull();
  });

  test('a missing binary says how to install it', () => {
    const missing = processResult({
      exitCode: null,
      spawnError: new WiggumError('E_HARNESS_MISSING', 'harnesses.codex.command: codex was not found on PATH'),
    });
    const failure = processFailure(missing, codexDriver.installHint, { perIterationMs: 1000, idleMs: 1000 });
    expect(failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_MISSING' });
    expect(failure?.message).toContain('npm i -g @openai/codex');
  });
});
