import { describe, expect, test } from 'vitest';
import { driverFor } from '../../src/harness/drivers/registry.js';
import { geminiDriver } from '../../src/harness/drivers/gemini-driver.js';
import { containsPromise } from '../../src/loop/promise.js';
import { fixture, readOutput } from '../helpers/driver-output.js';

// Real output of gemini-cli 0.61.0 (`--output-format stream-json`) against a scripted Gemini API
// server; see test/fixtures/gemini/README.md.
const gemini = (name: string): Buffer => fixture('gemini', name);

describe('the gemini driver', () => {
  test('is the driver registered for kind gemini', () => {
    expect(driverFor('gemini')).toBe(geminiDriver);
    expect(geminiDriver.installHint).toContain('npm i -g @google/gemini-cli');
  });

  test('joins the streamed pieces of the last message, after the last tool call', () => {
    const { report, shown } = readOutput(geminiDriver, gemini('complete.jsonl'));
    expect(report.finalMessage).toBe('Done.\n<promise>\n  COMPLETE\n</promise>');
    expect(containsPromise(report.finalMessage ?? '', 'COMPLETE')).toBe(true);
    expect(report.agentSessionId).toBe('cfdb5efa-ff7d-4248-9d6d-d16fee71730e');
    expect(report.usage).toMatchObject({ inputTokens: 2700, outputTokens: 90 });
    expect(report.failure).toBeNull();
    expect(shown).toContain('I will edit the file.\n→ run_shell_command: echo hello > out.txt\n');
    expect(shown).toContain('Done.\n<promise>\n  COMPLETE\n</promise>\n✓ Gemini CLI finished');
    expect(shown).not.toContain('{"type"');
  });

  test('reads the same from small chunks', () => {
    const whole = readOutput(geminiDriver, gemini('complete.jsonl'));
    expect(readOutput(geminiDriver, gemini('complete.jsonl'), { size: 3 })).toEqual(whole);
  });

  test('a refused key (401, or 400 "API key not valid") is a hard auth failure', () => {
    for (const [name, exitCode] of [
      ['auth.jsonl', 145],
      ['bad-key.jsonl', 144],
    ] as const) {
      const { report } = readOutput(geminiDriver, gemini(name), { exitCode });
      expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_AUTH' });
      expect(report.failure?.message).toContain('GEMINI_API_KEY');
      expect(report.finalMessage).toBe('');
    }
  });

  test('no auth method at all (exit 41) is a hard auth failure', () => {
    const { report } = readOutput(geminiDriver, '', { exitCode: 41, stderr: gemini('no-auth.stderr').toString() });
    expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_AUTH' });
    expect(report.failure?.message).toContain('Please set an Auth method');
  });

  test('429 after its own retries is a transient rate limit', () => {
    const { report } = readOutput(geminiDriver, gemini('rate-limit.jsonl'), { exitCode: 173 });
    expect(report.failure).toMatchObject({ kind: 'transient', code: 'E_HARNESS_RATE_LIMIT' });
  });

  test('an exhausted daily quota is a usage limit', () => {
    const { report } = readOutput(geminiDriver, gemini('usage-limit.jsonl'), { exitCode: 173 });
    expect(report.failure).toMatchObject({ kind: 'usage-limit', code: 'E_HARNESS_USAGE_LIMIT', resetAtMs: null });
    expect(report.failure?.message).toContain('daily quota');
  });

  test('a configuration refusal is hard, a turn limit is left to the loop', () => {
    expect(
      readOutput(geminiDriver, '', { exitCode: 52, stderr: 'Invalid configuration in settings.json\n' }).report.failure,
    ).toMatchObject({ kind: 'hard', code: 'E_HARNESS_FATAL' });
    expect(
      readOutput(geminiDriver, '', { exitCode: 53, stderr: 'Reached max session turns\n' }).report.failure,
    ).toBeNull();
  });
});
