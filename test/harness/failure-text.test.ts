import { describe, expect, test } from 'vitest';
import { classifyFailureText, parseResetTime } from '../../src/harness/drivers/failure-text.js';
import { failureOf } from '../../src/harness/drivers/driver.js';
import { jsonLinesReader } from '../../src/harness/drivers/json-lines-reader.js';
import { ampDriver } from '../../src/harness/drivers/amp-driver.js';
import { claudeDriver } from '../../src/harness/drivers/claude-driver.js';
import { codexDriver } from '../../src/harness/drivers/codex-driver.js';
import { geminiDriver } from '../../src/harness/drivers/gemini-driver.js';
import { opencodeDriver } from '../../src/harness/drivers/opencode-driver.js';
import { containsPromise } from '../../src/loop/promise.js';
import { processResult, readOutput } from '../helpers/driver-output.js';

const agent = { name: 'Agent', authFix: 'run `agent login`' };
const now = new Date(2026, 10, 22, 16, 47, 0).getTime();

describe('classifyFailureText', () => {
  test.each([
    ['exceeded retry limit, last status: 429 Too Many Requests', 'rate_limit', 'transient', 'E_HARNESS_RATE_LIMIT'],
    ['Rate limit reached for requests', 'rate_limit', 'transient', 'E_HARNESS_RATE_LIMIT'],
    ['API Error: 529 Overloaded', 'overloaded', 'transient', 'E_HARNESS_OVERLOADED'],
    ['connect ECONNREFUSED 127.0.0.1:443', 'network', 'transient', 'E_HARNESS_NETWORK'],
    ['unexpected status 401 Unauthorized: Incorrect API key provided', 'auth', 'hard', 'E_HARNESS_AUTH'],
    ["Error: Invalid or missing API key. Run 'amp login' to authenticate.", 'auth', 'hard', 'E_HARNESS_AUTH'],
    ['Quota exceeded. Check your plan and billing details.', 'billing', 'hard', 'E_HARNESS_BILLING'],
    ['You have exhausted your daily quota on this model.', 'usage_limit', 'usage-limit', 'E_HARNESS_USAGE_LIMIT'],
    [
      'Prompt is too long · the request is ~300000 tokens (limit 200000)',
      'context_too_long',
      'hard',
      'E_HARNESS_CONTEXT',
    ],
  ])('%s → %s (%s %s)', (text, kind, decision, code) => {
    const error = classifyFailureText(text, agent, now);
    expect(error).toMatchObject({ kind });
    expect(error === null ? null : failureOf(error)).toMatchObject({ kind: decision, code });
  });

  // What each of the five CLIs prints when its service is busy, limited or out of reach: every
  // one is waited out (transient or usage limit), none is an ordinary failed iteration.
  test.each([
    ['codex', 'Selected model is at capacity. Please try a different model.', 'overloaded'],
    ['codex', "We're currently experiencing high demand, which may cause temporary errors.", 'overloaded'],
    ['codex', 'exceeded retry limit, last status: 503 Service Unavailable', 'overloaded'],
    [
      'codex',
      'stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses)',
      'network',
    ],
    [
      'codex',
      'You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again later.',
      'usage_limit',
    ],
    [
      'claude',
      'API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.',
      'overloaded',
    ],
    ['claude', 'API Error: 500 Internal server error. This is a server-side issue, usually temporary', 'overloaded'],
    ['claude', 'API Error: Unable to connect to API (ConnectionRefused)', 'network'],
    ['claude', 'API Error: Unable to connect to API (ECONNRESET)', 'network'],
    ['claude', 'API Error: Request timed out.', 'network'],
    [
      'claude',
      'API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit',
      'rate_limit',
    ],
    ['opencode', 'Provider is overloaded', 'overloaded'],
    ['opencode', 'Too Many Requests', 'rate_limit'],
    ['opencode', 'Unable to connect. Is the computer able to access the url?', 'network'],
    ['gemini', 'The model is overloaded. Please try again later.', 'overloaded'],
    ['gemini', 'No capacity available for model gemini-2.5-pro on the server', 'overloaded'],
    [
      'gemini',
      '[API Error: got status: 503 Service Unavailable. {"error":{"code":503,"status":"UNAVAILABLE"}}]',
      'overloaded',
    ],
    ['gemini', '[API Error: {"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}]', 'rate_limit'],
    ['gemini', 'exception TypeError: fetch failed sending request', 'network'],
    ['amp', 'Error: fetch failed', 'network'],
    ['amp', 'Error: 503 Service Unavailable', 'overloaded'],
  ])('%s: %s → %s', (_cli, text, kind) => {
    expect(classifyFailureText(text, agent, now)).toMatchObject({ kind });
  });

  test('the auth message carries the fix', () => {
    expect(classifyFailureText('401 Unauthorized', agent, now)?.message).toContain('run `agent login`');
  });

  test('text it does not know is no failure class', () => {
    expect(classifyFailureText('the agent gave up', agent, now)).toBeNull();
    expect(classifyFailureText('   ', agent, now)).toBeNull();
  });
});

describe('parseResetTime', () => {
  test.each([
    ['try again at 5:47 PM.', new Date(2026, 10, 22, 17, 47).getTime()],
    ['try again at 4:00 PM.', new Date(2026, 10, 23, 16, 0).getTime()],
    ['resets 7pm (Europe/Berlin)', new Date(2026, 10, 22, 19, 0).getTime()],
    ['try again at Nov 24th, 2026 4:47 PM.', new Date(2026, 10, 24, 16, 47).getTime()],
    ['Please retry in 3h12m5s.', now + (3 * 3600 + 12 * 60 + 5) * 1000],
    ['Please retry in 37.5s.', now + 37_500],
    ['Your limit resets in 2 hours and 30 minutes', now + 2.5 * 3_600_000],
    ['usage limit reached, resets at 2026-11-23T01:00:00Z', Date.parse('2026-11-23T01:00:00Z')],
    ['Claude AI usage limit reached|1795400000', 1_795_400_000_000],
  ])('%s', (text, expected) => {
    expect(parseResetTime(text, now)).toBe(expected);
  });

  test('no time: null', () => {
    expect(parseResetTime('try again later.', now)).toBeNull();
    expect(parseResetTime('You have exhausted your daily quota on this model.', now)).toBeNull();
  });
});

describe('jsonLinesReader', () => {
  test('drops a line past the limit without keeping it, and goes on', () => {
    const seen: unknown[] = [];
    const reader = jsonLinesReader({ agent: 'Test', event: (event) => (seen.push(event), []), finish: () => [] });
    const huge = Buffer.alloc(9 * 1024 * 1024, 'x');
    const shown = [Buffer.from('{"a":1}\n'), huge, Buffer.from('\n{"b":2}\n')].map((chunk) => {
      reader.push(chunk, 'stdout');
      return reader.display(chunk, 'stdout');
    });
    reader.finish(processResult());
    expect(seen).toEqual([{ a: 1 }, { b: 2 }]);
    expect(shown.join('')).toContain('longer than the limit');
  });

  test('reads a last line without a newline at the end', () => {
    const seen: unknown[] = [];
    const reader = jsonLinesReader({
      agent: 'Test',
      event: (event) => (seen.push(event), []),
      finish: (run) => (run.sawJson ? [{ type: 'final_message', text: 'json' }] : []),
    });
    reader.push(Buffer.from('{"a":1}'), 'stdout');
    expect(reader.finish(processResult()).finalMessage).toBe('json');
    expect(seen).toEqual([{ a: 1 }]);
  });
});

describe('malformed and unknown output', () => {
  const drivers = [claudeDriver, codexDriver, opencodeDriver, geminiDriver, ampDriver];
  const noise = [
    '{"type":"assistant","message":{"content":[{"type":"text","text":"cut off',
    '{"type":"from-a-later-version","payload":{"x":[1,2,3]}}',
    '{"type":"result","usage":"not an object","is_error":"maybe","result":42}',
    '{"type":"item.completed","item":null}',
    '{"type":"tool_use","part":{"state":[]},"parameters":7}',
    '[1,2,3]',
    'Warning: a plain line between the events',
    '',
  ].join('\n');

  test.each(drivers.map((driver) => [driver.kind, driver] as const))(
    '%s: shapes it does not know never throw; plain lines are shown as they are',
    (_kind, driver) => {
      const { report, shown } = readOutput(driver, `${noise}\n`, { size: 7 });
      expect(shown).toContain('Warning: a plain line between the events');
      expect(report.failure).toBeNull();
      expect(containsPromise(report.finalMessage ?? '', 'COMPLETE')).toBe(false);
    },
  );
});
