import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { checkWebhookUrl, isLoopbackHost, redactUrl } from '../../src/config/webhook-url.js';
import { deliveryDelayMs } from '../../src/notify/backoff.js';
import { eventDocument, titleOf } from '../../src/notify/event-doc.js';
import { NO_STALL, eventOfEnding, stallStep, stallThreshold, usageLimitStep } from '../../src/notify/event-map.js';
import { FAILING_AFTER, FRESH_HEALTH, afterAttempt } from '../../src/notify/health.js';
import { backlogOverflow, parseEntry } from '../../src/notify/outbox.js';
import { signBody, standardHeaders, standardKey } from '../../src/notify/signature.js';
import { describeNotifier } from '../../src/notify/describe.js';

describe('the signature', () => {
  test.each([
    ['whsec-1', '{"id":"a"}'],
    ['s', ''],
    ['ключ', '{"title":"ünïcode ✓"}'],
  ])('sha256=<hex HMAC-SHA256(%s, body)>', (secret, body) => {
    const expected = createHmac('sha256', secret).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(signBody(secret, body)).toBe(`sha256=${expected}`);
  });
});

describe('the Standard Webhooks signature', () => {
  test('the example of the Standard Webhooks specification', () => {
    const headers = standardHeaders(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1_614_265_330_000,
      '{"test": 2432232314}',
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  test.each([
    // secret, the key's bytes
    ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64')],
    ['plain-secret-1', Buffer.from('plain-secret-1', 'utf8')],
    ['whsec_not base64!', Buffer.from('whsec_not base64!', 'utf8')],
    ['whsec_', Buffer.from('whsec_', 'utf8')],
    ['whsec_abc', Buffer.from('whsec_abc', 'utf8')], // not a whole base64 text
    ['ключ', Buffer.from('ключ', 'utf8')],
  ])('the key of %s', (secret, key) => {
    expect(standardKey(secret).equals(key)).toBe(true);
  });

  test.each([
    // id, now, body
    ['e1', 1_700_000_000_999, '{"id":"e1"}'],
    ['e1', 1_700_000_060_000, '{"id":"e1"}'],
    ['0f9a', 0, ''],
    ['ü', 1_000, '{"title":"ünïcode ✓"}'],
  ])('id %s at %i ms: v1,<base64 HMAC-SHA256 of id.timestamp.body>, timestamp in seconds', (id, nowMs, body) => {
    const timestamp = String(Math.floor(nowMs / 1000));
    const expected = createHmac('sha256', 'plain-secret-1').update(`${id}.${timestamp}.${body}`).digest('base64');
    expect(standardHeaders('plain-secret-1', id, nowMs, body)).toEqual({
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${expected}`,
    });
  });
});

describe('the backoff', () => {
  const retry = { baseDelayMs: 1000, maxDelayMs: 30_000, giveUpAfterMs: 86_400_000 };
  test.each([
    // failures, random, delay
    [1, 0, 1000],
    [2, 0, 2000],
    [3, 0, 4000],
    [5, 0, 16_000],
    [6, 0, 30_000], // capped
    [60, 0, 30_000], // no overflow
    [1, 1, 750], // a quarter off at most
    [3, 0.5, 3500],
    [0, 0, 1000],
  ])('after %i failure(s), random %f: %i ms', (failures, random, delay) => {
    expect(deliveryDelayMs(failures, retry, () => random)).toBe(delay);
  });
});

describe('the webhook URL', () => {
  test.each([
    ['https://hooks.example.com/wiggum', true, ''],
    ['http://127.0.0.1:8080/x', true, ''],
    ['http://127.1.2.3/x', true, ''],
    ['http://localhost:9/x', true, ''],
    ['http://[::1]:9/x', true, ''],
    ['not a url at all', false, 'not a URL'],
    ['', false, 'not a URL'],
    ['http://example.com/hook', false, 'use https://'],
    ['http://10.0.0.1/hook', false, 'use https://'],
    ['ftp://example.com/x', false, 'use https://'],
    ['https://user:pw@example.com/x', false, 'secret_env'],
  ])('%s: ok %s', (url, ok, said) => {
    const checked = checkWebhookUrl(url);
    expect(checked.ok).toBe(ok);
    if (!checked.ok) {
      expect(checked.message).toContain(said);
      // The message never repeats a path or a query: they may hold a token.
      expect(checked.message).not.toMatch(/hook\b|pw/);
    }
  });

  test.each([
    ['https://hooks.example.com/wiggum/tok-SECRET?key=Q', 'https://hooks.example.com:443/…'],
    ['http://127.0.0.1:4000/hooks/tok?key=QSECRET#frag', 'http://127.0.0.1:4000/…'],
    ['http://[::1]:9/a', 'http://[::1]:9/…'],
    ['https://h.example:8443', 'https://h.example:8443/…'],
    ['not a url', '(not a URL)'],
  ])('%s is shown as %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  test.each([
    ['127.0.0.1', true],
    ['localhost', true],
    ['a.localhost', true],
    ['[::1]', true],
    ['128.0.0.1', false],
    ['localhost.example.com', false],
  ])('%s is loopback: %s', (host, loopback) => expect(isLoopbackHost(host)).toBe(loopback));
});

describe('the event document', () => {
  test('carries id, event, time, task and the details; the details never replace them', () => {
    const doc = eventDocument(
      {
        event: 'done',
        task: { id: 'w1', file: 'Done/w1.md', title: 'W one' },
        details: { iterations: 2, id: 'forged', event: 'rejected' },
      },
      'evt-1',
      Date.UTC(2025, 0, 2, 3, 4, 5),
      '/v',
    );
    expect(doc).toEqual({
      id: 'evt-1',
      event: 'done',
      time: '2025-01-02T03:04:05.000Z',
      vault: '/v',
      task: { id: 'w1', file: 'Done/w1.md', title: 'W one' },
      iterations: 2,
    });
  });

  test.each([
    ['---\ntitle: Fix the login\nharness: x\n---\nbody', 'Fix the login'],
    ['---\ntitle: "Quoted: yes"\n---\n', 'Quoted: yes'],
    ["---\ntitle: 'single'\n---\n", 'single'],
    ['---\nharness: x\n---\ntitle: not frontmatter\n', 'fallback'],
    ['no frontmatter', 'fallback'],
    ['---\ntitle:   \n---\n', 'fallback'],
  ])('the title of %j is %s', (text, title) => expect(titleOf(text, 'fallback')).toBe(title));
});

describe('the event of a task ending', () => {
  test.each<[Parameters<typeof eventOfEnding>[0], string | null]>([
    [{ status: 'done' }, 'done'],
    [{ status: 'done', review: true }, 'review'],
    [{ status: 'rejected' }, 'rejected'],
    [{ status: 'blocked' }, 'blocked'],
    [{ status: 'stopped' }, null],
    [{ status: 'interrupted' }, null],
  ])('%j → %s', (result, event) => expect(eventOfEnding(result)).toBe(event));

  test.each([
    // waiting before, why, → waiting, notify
    [false, 'usage-limit', true, true],
    [true, 'usage-limit', true, false],
    [false, 'retry', false, false],
    [true, 'outage', false, false],
  ])('a wait (before %s, %s): waiting %s, told %s', (before, why, waiting, notify) => {
    expect(usageLimitStep(before, why)).toEqual({ waiting, notify });
  });

  const none = { outcome: 'continue', storiesPassing: 0 };
  test.each([
    // before, record, threshold → streak, notify
    [NO_STALL, none, 2, 1, false],
    [{ streak: 1, storiesPassing: 0 }, none, 2, 2, true],
    [{ streak: 2, storiesPassing: 0 }, none, 2, 3, false], // told once
    [{ streak: 1, storiesPassing: 0 }, { outcome: 'continue', storiesPassing: 1 }, 2, 0, false],
    [
      { streak: 1, storiesPassing: 1 },
      {
        outcome: 'continue',
        storiesPassing: 1,
        git: { headBefore: 'a', headAfter: 'b', commits: ['b'], filesChanged: 1, files: ['x'] },
      },
      2,
      0,
      false,
    ],
    [{ streak: 1, storiesPassing: 0 }, { outcome: 'transient', storiesPassing: 0 }, 2, 1, false],
    [{ streak: 5, storiesPassing: 0 }, none, 0, 6, false], // no limit: never told
  ])('stall: %j then %j (threshold %i): streak %i, told %s', (before, record, threshold, streak, notify) => {
    const step = stallStep(before, record, threshold);
    expect(step.state.streak).toBe(streak);
    expect(step.notify).toBe(notify);
  });

  test.each([
    [0, 0],
    [1, 2],
    [3, 2],
    [4, 2],
    [10, 5],
  ])('no_progress_limit %i: stalled after %i', (limit, threshold) => expect(stallThreshold(limit)).toBe(threshold));
});

describe("a notifier's health", () => {
  test('failing once at FAILING_AFTER failures in a row, recovered once at the next success', () => {
    let health = FRESH_HEALTH;
    const changes: (string | null)[] = [];
    for (let i = 1; i <= FAILING_AFTER + 1; i += 1) {
      const next = afterAttempt(health, { ok: false, error: `e${i}` }, i);
      health = next.health;
      changes.push(next.change);
    }
    expect(changes).toEqual([...Array<null>(FAILING_AFTER - 1).fill(null), 'failing', null]);
    expect(health).toMatchObject({ failures: FAILING_AFTER + 1, lastError: `e${FAILING_AFTER + 1}` });
    const ok = afterAttempt(health, { ok: true }, 99);
    expect(ok).toEqual({ health: { ...health, failures: 0, lastOkAtMs: 99 }, change: 'recovered' });
    expect(afterAttempt(ok.health, { ok: true }, 100).change).toBeNull();
  });

  test.each([
    [
      { failing: true, failures: 4, lastError: 'connection refused (ECONNREFUSED)', pending: 2 },
      /FAILING.*connection refused.*2 events pending/,
    ],
    [
      { failing: false, failures: 1, lastError: 'the receiver answered HTTP 500', pending: 1 },
      /retrying; last error: the receiver answered HTTP 500/,
    ],
    [{ failing: false, failures: 0, lastError: null, pending: 0, lastOkAtMs: 5 }, /ok, last delivery at/],
    [{ failing: false, failures: 0, lastError: null, pending: 0 }, /nothing sent yet/],
  ])('said as %j', (state, said) => {
    const line = describeNotifier(
      {
        label: 'webhook https://h:443/…',
        kind: 'webhook',
        events: ['done'],
        lastErrorAtMs: 1,
        lastOkAtMs: null,
        ...state,
      },
      10,
    );
    expect(line).toMatch(/^webhook https:\/\/h:443\/… \(done\): /);
    expect(line).toMatch(said);
  });
});

describe('the outbox', () => {
  test.each([
    [0, 10, 0],
    [9, 10, 0],
    [10, 10, 1],
    [15, 10, 6],
  ])('%i pending, max %i: %i dropped for one more', (pending, max, dropped) =>
    expect(backlogOverflow(pending, max)).toBe(dropped),
  );

  test.each([
    ['{"version":1,"id":"a","notifier":"n1-x","event":"done","createdAtMs":1,"body":"{}"}', true],
    ['{"version":2,"id":"a","notifier":"n1-x","event":"done","createdAtMs":1,"body":"{}"}', false],
    ['{"version":1,"id":"a"}', false],
    ['not json', false],
  ])('%s is an entry: %s', (text, ok) => expect(parseEntry(text) !== null).toBe(ok));
});
