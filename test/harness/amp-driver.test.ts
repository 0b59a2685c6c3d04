import { describe, expect, test } from 'vitest';
import { ampDriver } from '../../src/harness/drivers/amp-driver.js';
import { driverFor } from '../../src/harness/drivers/registry.js';
import { containsPromise } from '../../src/loop/promise.js';
import { fixture, readOutput } from '../helpers/driver-output.js';

// Amp cannot be run offline: the no-key outputs are real, the stream JSON follows Amp's documented
// format (Claude Code's); see test/fixtures/amp/README.md.
const amp = (name: string): Buffer => fixture('amp', name);

describe('the amp driver', () => {
  test('is the driver registered for kind amp', () => {
    expect(driverFor('amp')).toBe(ampDriver);
    expect(ampDriver.installHint).toContain('npm i -g @ampcode/cli');
  });

  test('takes the result text, the thread id and the tokens of every assistant message', () => {
    const { report, shown } = readOutput(ampDriver, amp('complete.jsonl'));
    expect(report.finalMessage).toBe('Done.\n<promise>\n  COMPLETE\n</promise>');
    expect(containsPromise(report.finalMessage ?? '', 'COMPLETE')).toBe(true);
    expect(report.agentSessionId).toBe('T-2775dc92-90ed-4f85-8b73-8f9766029e83');
    expect(report.usage).toMatchObject({ inputTokens: 12783 + 367 + 12416 + 13100 + 12783, outputTokens: 28 });
    expect(report.failure).toBeNull();
    expect(shown).toContain('● Amp · session T-2775dc92');
    expect(shown).toContain('→ Bash:');
    expect(shown).toContain('✓ Amp finished (2 turns, 2.9 s)');
    expect(shown).not.toContain('{"type"');
  });

  test('reads the same from small chunks', () => {
    const whole = readOutput(ampDriver, amp('complete.jsonl'));
    expect(readOutput(ampDriver, amp('complete.jsonl'), { size: 4 })).toEqual(whole);
  });

  test('without a result, the last assistant text is the final message', () => {
    const lines = amp('complete.jsonl')
      .toString()
      .split('\n')
      .filter((line) => !line.includes('"type":"result"'));
    expect(readOutput(ampDriver, lines.join('\n')).report.finalMessage).toBe(
      'Done.\n<promise>\n  COMPLETE\n</promise>',
    );
  });

  test('an error result is classified from its text', () => {
    const { report } = readOutput(ampDriver, amp('error-result.jsonl'), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind: 'transient', code: 'E_HARNESS_RATE_LIMIT' });
    expect(report.finalMessage).toBe('');
  });

  test('no API key (Amp starts an interactive login) is a hard auth failure', () => {
    const { report } = readOutput(ampDriver, amp('no-key.stdout'), {
      exitCode: 1,
      stderr: amp('no-key.stderr').toString(),
    });
    expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_AUTH' });
    expect(report.failure?.message).toContain('AMP_API_KEY');
  });

  test('a refused API key is a hard auth failure', () => {
    const { report } = readOutput(ampDriver, '', { exitCode: 1, stderr: amp('bad-key.stderr').toString() });
    expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_AUTH' });
    expect(report.failure?.message).toContain('Invalid or missing API key');
  });

  test('an unreachable Amp server is a transient network failure', () => {
    const { report } = readOutput(ampDriver, '', { exitCode: 1, stderr: amp('no-server.stderr').toString() });
    expect(report.failure).toMatchObject({ kind: 'transient', code: 'E_HARNESS_NETWORK' });
  });
});
