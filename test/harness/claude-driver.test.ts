import { describe, expect, test } from 'vitest';
import { WiggumError } from '../../src/errors.js';
import { claudeDriver, claudeReader } from '../../src/harness/drivers/claude-driver.js';
import { LineSplitter } from '../../src/harness/drivers/json-events.js';
import { processFailure } from '../../src/harness/drivers/driver.js';
import { driverFor } from '../../src/harness/drivers/registry.js';
import { containsPromise } from '../../src/loop/promise.js';
import { fixture, processResult, readOutput } from '../helpers/driver-output.js';

// The fixtures are real output of Claude Code 2.1.330 (`-p --verbose --output-format stream-json`)
// against test/helpers/anthropic-server.ts; see test/fixtures/claude/README.md.
const claude = (name: string): Buffer => fixture('claude', `${name}.jsonl`);

describe('the claude driver', () => {
  test('is the driver registered for kind claude', () => {
    expect(driverFor('claude')).toBe(claudeDriver);
  });

  test('a successful run: the final message, session id, tokens and cost come from the result event', () => {
    const { report } = readOutput(claudeDriver, claude('success'));
    expect(report.failure).toBeNull();
    expect(report.finalMessage).toBe('All done.\n<promise>\nCOMPLETE\n</promise>');
    expect(containsPromise(report.finalMessage ?? '', 'COMPLETE')).toBe(true);
    expect(report.agentSessionId).toBe('663e02f1-912e-4345-ad37-46726aac300b');
    expect(report.usage).toMatchObject({ inputTokens: 200, outputTokens: 40, costUsd: 0.0016 });
  });

  test.each([1, 7, 4096])('reads the same from chunks of %i bytes (lines and characters split)', (size) => {
    for (const name of ['success', 'overloaded', 'usage-limit']) {
      expect(readOutput(claudeDriver, claude(name), { size, exitCode: name === 'success' ? 0 : 1 }).report).toEqual(
        readOutput(claudeDriver, claude(name), { exitCode: name === 'success' ? 0 : 1 }).report,
      );
    }
  });

  test.each([
    ['rate-limit', 'transient', 'E_HARNESS_RATE_LIMIT', /rate limit was hit \(429\).*Request rejected \(429\)/],
    ['overloaded', 'transient', 'E_HARNESS_OVERLOADED', /overloaded \(529\).*529 Overloaded/],
    ['network', 'transient', 'E_HARNESS_NETWORK', /could not be reached.*ECONNRESET/],
    ['auth', 'hard', 'E_HARNESS_AUTH', /Invalid API key.*set ANTHROPIC_API_KEY.*claude login/],
    ['not-logged-in', 'hard', 'E_HARNESS_AUTH', /Not logged in.*set ANTHROPIC_API_KEY.*claude login/],
    ['credit', 'hard', 'E_HARNESS_BILLING', /Credit balance is too low.*add credits/],
  ] as const)('%s: classified from Claude Code’s own output as %s %s', (name, kind, code, message) => {
    const { report } = readOutput(claudeDriver, claude(name), { exitCode: 1 });
    expect(report.failure).toMatchObject({ kind, code });
    expect(report.failure?.message).toMatch(message);
    expect(containsPromise(report.finalMessage ?? '', 'COMPLETE')).toBe(false);
  });

  test('a usage limit: waits until the reset its rate_limit_event gives', () => {
    const { report, shown } = readOutput(claudeDriver, claude('usage-limit'), { exitCode: 1 });
    expect(report.failure).toEqual({
      kind: 'usage-limit',
      code: 'E_HARNESS_USAGE_LIMIT',
      message:
        "Claude Code reached its usage limit (it resets at 2026-11-22T20:01:49.000Z): You've hit your 5-hour limit · resets 8:01pm (UTC)",
      resetAtMs: 1_795_377_709_000,
    });
    expect(shown).toContain('⏸ usage limit reached (five_hour), resets at 2026-11-22T20:01:49.000Z');
  });

  test('a usage limit that was lifted again (a later rate_limit_event says allowed) is a plain rate limit', () => {
    const lines = [
      {
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', resetsAt: 1_795_377_709, rateLimitType: 'five_hour' },
      },
      {
        type: 'rate_limit_event',
        rate_limit_info: { status: 'allowed', resetsAt: 1_795_377_709, rateLimitType: 'five_hour' },
      },
      {
        type: 'result',
        subtype: 'success',
        is_error: true,
        api_error_status: 429,
        api_error_type: 'rate_limit_error',
        result: 'API Error: Request rejected (429) · slow down',
      },
    ];
    const { report } = readOutput(claudeDriver, Buffer.from(lines.map((line) => JSON.stringify(line)).join('\n')), {
      exitCode: 1,
    });
    expect(report.failure).toMatchObject({ kind: 'transient', code: 'E_HARNESS_RATE_LIMIT' });
  });

  test('the older "Claude AI usage limit reached|<epoch>" form gives the reset too', () => {
    const lines = [
      { type: 'system', subtype: 'init', session_id: 's-1' },
      {
        type: 'result',
        subtype: 'success',
        is_error: true,
        result: 'Claude AI usage limit reached|1712345678',
        session_id: 's-1',
      },
    ];
    const { report } = readOutput(claudeDriver, Buffer.from(lines.map((line) => JSON.stringify(line)).join('\n')), {
      exitCode: 1,
    });
    expect(report.failure).toMatchObject({
      kind: 'usage-limit',
      resetAtMs: 1_712_345_678_000,
      message:
        'Claude Code reached its usage limit (it resets at 2024-04-05T19:34:38.000Z): Claude AI usage limit reached',
    });
  });

  test('Claude Code’s own retries are shown, and a later success is a success', () => {
    const { report, shown } = readOutput(claudeDriver, claude('retry-then-success'));
    expect(report.failure).toBeNull();
    expect(report.finalMessage).toBe('ok <promise>COMPLETE</promise>');
    expect(shown).toMatch(/⟳ API error 429 \(rate_limit\): Claude Code retries \(1\/1\) in \d+\.\d s/);
  });

  test('max turns: an ordinary failed iteration, with no final message', () => {
    const { report } = readOutput(claudeDriver, claude('max-turns'), { exitCode: 1 });
    expect(report.failure).toBeNull();
    expect(report.finalMessage).toBe('');
  });

  test('the promise is read from the result only, never from a tool call or its output', () => {
    const lines = [
      { type: 'system', subtype: 'init', session_id: 's-2' },
      {
        type: 'assistant',
        message: {
          content: [
            { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'echo "<promise>COMPLETE</promise>"' } },
          ],
        },
      },
      {
        type: 'user',
        message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: '<promise>COMPLETE</promise>' }] },
      },
      { type: 'result', subtype: 'success', is_error: false, result: 'Not done yet.', session_id: 's-2' },
    ];
    const { report } = readOutput(
      claudeDriver,
      Buffer.from(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`),
    );
    expect(report.finalMessage).toBe('Not done yet.');
  });

  test('a run that ended before its result event has no final message (and so no promise)', () => {
    const lines = success()
      .split('\n')
      .filter((line) => !line.includes('"type":"result"'));
    const { report } = readOutput(claudeDriver, Buffer.from(lines.join('\n')), { exitCode: 1 });
    expect(report.finalMessage).toBe('');
    expect(report.agentSessionId).toBe('663e02f1-912e-4345-ad37-46726aac300b');
  });

  test('plain text output (--output-format text): the promise is looked for in stdout, errors read from the text', () => {
    expect(readOutput(claudeDriver, Buffer.from('Done.\n<promise>COMPLETE</promise>\n')).report).toEqual({
      finalMessage: null,
      failure: null,
    });
    const limited = readOutput(
      claudeDriver,
      Buffer.from(
        'API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit\n',
      ),
      { exitCode: 1 },
    );
    expect(limited.report.failure).toMatchObject({ kind: 'transient', code: 'E_HARNESS_RATE_LIMIT' });
  });

  test('running as root without IS_SANDBOX: a hard failure that says how to fix it', () => {
    // What Claude Code 2.1.330 prints on stderr, with nothing on stdout, exit 1.
    const { report, shown } = readOutput(claudeDriver, Buffer.alloc(0), {
      exitCode: 1,
      stderr: '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n',
    });
    expect(report.failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_FATAL' });
    expect(report.failure?.message).toMatch(/IS_SANDBOX/);
    expect(shown).toContain('cannot be used with root/sudo');
  });

  test('a missing binary names the install command', () => {
    const missing = new WiggumError('E_HARNESS_MISSING', 'harness command "claude" was not found');
    const failure = processFailure(
      processResult({ pid: null, exitCode: null, spawnError: missing }),
      claudeDriver.installHint,
      { perIterationMs: 1, idleMs: 1 },
    );
    expect(failure).toMatchObject({ kind: 'hard', code: 'E_HARNESS_MISSING' });
    expect(failure?.message).toContain('install it with npm i -g @anthropic-ai/claude-code');
  });

  test('the live stream shows readable lines, not JSON', () => {
    const { shown } = readOutput(claudeDriver, claude('success'), { size: 5 });
    expect(shown).toContain(
      '● Claude Code 2.1.330 · model claude-opus-5-5 · session 663e02f1-912e-4345-ad37-46726aac300b',
    );
    expect(shown).toContain('→ Bash: echo hello > a.txt && cat a.txt');
    expect(shown).toContain('  ← hello');
    expect(shown).toContain('All done.\n<promise>\nCOMPLETE\n</promise>\n');
    expect(shown).toMatch(/✓ Claude Code finished \(2 turns, \d+\.\d s, \$0\.0016, 200 in \/ 40 out tokens\)/);
    expect(shown).not.toContain('{"type"');
    // The API error comes twice (a synthetic assistant message and the result) and is shown once.
    const auth = readOutput(claudeDriver, claude('auth'), { exitCode: 1 }).shown;
    expect(auth).toMatch(
      /^● Claude Code .*\n✗ Claude Code ended with an error \(api_error, 1 turn, \d+\.\d s\): Invalid API key · Fix external API key\n$/,
    );
  });

  test('a line over the limit is dropped, not buffered, and the lines after it are still read', () => {
    const reader = claudeReader(64 * 1024);
    const huge = Buffer.alloc(1024 * 1024, 'x');
    let shown = '';
    for (let start = 0; start < huge.length; start += 4096) {
      const chunk = huge.subarray(start, start + 4096);
      reader.push(chunk, 'stdout');
      shown += reader.display(chunk, 'stdout');
    }
    const rest = Buffer.from('\n' + success());
    reader.push(rest, 'stdout');
    shown += reader.display(rest, 'stdout');
    const report = reader.finish(processResult());
    expect(report.finalMessage).toBe('All done.\n<promise>\nCOMPLETE\n</promise>');
    expect(shown).toContain('[an output line longer than the limit was dropped]\n');
  });
});

describe('LineSplitter', () => {
  test('joins lines across chunks, keeps multi-byte characters whole, and ends with the unterminated last line', () => {
    const lines: (string | null)[] = [];
    const splitter = new LineSplitter(64);
    const text = Buffer.from('é1\r\nsecond — line\nlast');
    for (const byte of text) splitter.push(Buffer.from([byte]), (line) => lines.push(line));
    splitter.end((line) => lines.push(line));
    expect(lines).toEqual(['é1', 'second — line', 'last']);
  });

  test('reports an over-long line once, as null', () => {
    const lines: (string | null)[] = [];
    const splitter = new LineSplitter(8);
    splitter.push(Buffer.from('short\n0123456789abcdef'), (line) => lines.push(line));
    splitter.push(Buffer.from('ghij\nok\n'), (line) => lines.push(line));
    expect(lines).toEqual(['short', null, 'ok']);
  });
});

function success(): string {
  return claude('success').toString('utf8');
}
