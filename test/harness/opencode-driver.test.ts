import { describe, expect, test } from 'vitest';
import { driverFor } from '../../src/harness/drivers/registry.js';
import { opencodeDriver } from '../../src/harness/drivers/opencode-driver.js';
import { containsPromise } from '../../src/loop/promise.js';
import { fixture, readOutput } from '../helpers/driver-output.js';

// Real output of opencode 1.18.33 (`run --format json --auto`) against a scripted
// chat-completions server; see test/fixtures/opencode/README.md.
const opencode = (name: string): Buffer => fixture('opencode', name);

describe('the opencode driver', () => {
  test('is the driver registered for kind opencode', () => {
    expect(driverFor('opencode')).toBe(opencodeDriver);
    expect(opencodeDriver.installHint).toContain('npm i -g opencode-ai');
  });

  test('takes the last text part, the session id, tokens and cost summed over the steps', () => {
    const { report, shown } = readOutput(opencodeDriver, opencode('complete.jsonl'));
    expect(report.finalMessage).toBe('Done.\n<promise>\n  COMPLETE\n</promise>');
    expect(containsPromise(report.finalMessage ?? '', 'COMPLETE')).toBe(true);
    expect(report.agentSessionId).toMatch(/^ses_/);
    expect(report.usage).toMatchObject({ inputTokens: 2000, outputTokens: 40 });
    expect(report.usage?.costUsd).toBeCloseTo(0.0066, 10);
    expect(report.failure).toBeNull();
    expect(shown).toContain('→ bash: echo hello > out.txt && cat out.txt\n  ← hello\n');
    expect(shown).toContain('I will edit the file.\n');
    expect(shown).not.toContain('{"type"');
  });

  test('reads the same from small chunks', () => {
    const whole = readOutput(opencodeDriver, opencode('complete.jsonl'));
    expect(readOutput(opencodeDriver, opencode('complete.jsonl'), { size: 5 })).toEqual(whole);
  });

  test('401 is a hard auth failure that says how to fix it', () => {
    const { report, shown } = readOutput(opencodeDriver, opencode('auth.jsonl'), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_AUTH' });
    expect(report.failure?.message).toContain('Incorrect API key provided');
    expect(report.failure?.message).toContain('opencode auth login');
    expect(report.finalMessage).toBe('');
    expect(shown).toContain('! APIError (status 401): Incorrect API key provided');
  });

  test('429 is a transient rate limit', () => {
    const { report } = readOutput(opencodeDriver, opencode('rate-limit.jsonl'), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'transient', code: 'E_HARNESS_RATE_LIMIT' });
  });

  test('503 overloaded is transient', () => {
    const { report } = readOutput(opencodeDriver, opencode('overload.jsonl'), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'transient', code: 'E_HARNESS_OVERLOADED' });
    expect(report.failure?.message).toContain('The server is overloaded');
  });

  test('a usage limit in the error text waits for its reset', () => {
    const line = JSON.stringify({
      type: 'error',
      sessionID: 'ses_x',
      error: {
        name: 'APIError',
        data: {
          message: 'You have reached your usage limit. It resets in 2 hours.',
          statusCode: 429,
          isRetryable: true,
        },
      },
    });
    const { report } = readOutput(opencodeDriver, `${line}\n`, { exitCode: 1, endedAtMs: 1_000_000 });
    expect(report.failure).toMatchObject({ kind: 'usage-limit', resetAtMs: 1_000_000 + 2 * 3_600_000 });
  });

  test('a missing provider key is a hard auth failure', () => {
    const line = JSON.stringify({
      type: 'error',
      sessionID: 'ses_x',
      error: { name: 'ProviderAuthError', data: { providerID: 'openai', message: 'API key is missing' } },
    });
    const { report } = readOutput(opencodeDriver, `${line}\n`, { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_AUTH' });
  });
});
