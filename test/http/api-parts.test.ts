import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { exposureProblem, isLoopbackHost, listenProblem, parseListen } from '../../src/config/http-listen.js';
import { WiggumError } from '../../src/errors.js';
import { answerForError } from '../../src/http/envelope.js';
import { contextBody, readBody, retryBody } from '../../src/http/request-body.js';
import { Slots } from '../../src/http/request-limits.js';
import { SharedAnswer } from '../../src/http/shared-answer.js';
import { TokenGate, bearerOf, ensureToken, tokenFile, writeToken } from '../../src/http/token.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('daemon.http.listen', () => {
  test.each([
    ['127.0.0.1:8377', { host: '127.0.0.1', port: 8377, shown: '127.0.0.1:8377' }],
    ['[::1]:80', { host: '::1', port: 80, shown: '[::1]:80' }],
    ['localhost:0', { host: 'localhost', port: 0, shown: 'localhost:0' }],
    [' 0.0.0.0:9000 ', { host: '0.0.0.0', port: 9000, shown: '0.0.0.0:9000' }],
    ['8377', null],
    ['127.0.0.1', null],
    ['127.0.0.1:70000', null],
    ['::1:80', null],
    ['http://127.0.0.1:80', null],
    ['host name:80', null],
  ])('%j parses to %j', (text, want) => {
    expect(parseListen(text)).toEqual(want);
    expect(listenProblem(text) === null).toBe(want !== null);
  });

  test.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.2', false],
    ['example.org', false],
  ])('%s is loopback: %s', (host, want) => expect(isLoopbackHost(host)).toBe(want));

  test.each([
    ['127.0.0.1:1', false, false, false],
    ['0.0.0.0:1', false, false, true],
    ['0.0.0.0:1', true, false, false],
    ['0.0.0.0:1', false, true, false],
    ['[::]:1', false, false, true],
    ['10.0.0.1:1', false, false, true],
    ['not an address', false, false, false],
  ])('%s with tls %s, insecure %s: refused %s', (listen, tls, insecure, refused) => {
    const problem = exposureProblem(listen, { tls, insecure });
    expect(problem !== null).toBe(refused);
    if (problem !== null) expect(problem).toMatch(/tls.*insecure: true/s);
  });
});

describe('request bodies', () => {
  test.each([
    ['', retryBody, { ok: true, value: {} }],
    ['{"fresh":true}', retryBody, { ok: true, value: { fresh: true } }],
    ['{"fresh":"yes"}', retryBody, { ok: false }],
    ['{"text":"  use blue  "}', contextBody, { ok: true, value: { text: 'use blue' } }],
    ['{"clear":true}', contextBody, { ok: true, value: { clear: true } }],
    ['{"text":""}', contextBody, { ok: false }],
    ['{"text":"a","extra":1}', contextBody, { ok: false }],
    ['[1]', contextBody, { ok: false }],
    ['{text', contextBody, { ok: false, message: 'the body is not JSON' }],
    [JSON.stringify({ text: 'a'.repeat(16 * 1024 + 1) }), contextBody, { ok: false }],
  ] as const)('%s', (text, schema, want) => {
    expect(readBody(text, schema as typeof contextBody)).toMatchObject(want);
  });
});

describe('errors and bounds', () => {
  test.each([
    [new WiggumError('E_TASK_NOT_FOUND', 'task not found: "x"'), 404, 'task not found: "x"'],
    [new WiggumError('E_USAGE', 'Done/x.md has ended'), 409, 'Done/x.md has ended'],
    [
      new WiggumError('E_WRITE', 'disk full at /secret/path'),
      500,
      'the daemon could not answer this request; its log says why',
    ],
    [new Error('boom'), 500, 'the daemon could not answer this request; its log says why'],
  ])('%s → %i', (error, status, message) => {
    const answer = answerForError(error);
    expect(answer.status).toBe(status);
    expect(answer.body.error.message).toBe(message);
    expect(answer.body.error.code).toMatch(/^[a-z_]+$/);
  });

  test('slots admit up to their size, and again once one is left', () => {
    const slots = new Slots(2);
    expect([slots.enter(), slots.enter(), slots.enter()]).toEqual([true, true, false]);
    slots.leave();
    expect(slots.enter()).toBe(true);
    expect(slots.inUse).toBe(2);
  });

  test('a shared answer is computed once for callers at the same time, and again once it is stale', async () => {
    let now = 0;
    let computed = 0;
    let release!: () => void;
    const shared = new SharedAnswer(
      () => new Promise<number>((resolve) => (release = () => resolve(++computed))),
      () => now,
      500,
    );
    const together = [shared.get(), shared.get(), shared.get()];
    release();
    expect(await Promise.all(together)).toEqual([1, 1, 1]);
    now = 499;
    expect(await shared.get()).toBe(1);
    now = 500;
    const later = shared.get();
    release();
    expect(await later).toBe(2);
  });

  test('a failed computation is not kept: the next caller computes again', async () => {
    let calls = 0;
    const shared = new SharedAnswer(
      () => (++calls === 1 ? Promise.reject(new Error('once')) : Promise.resolve('fine')),
      () => 0,
      500,
    );
    await expect(shared.get()).rejects.toThrow('once');
    expect(await shared.get()).toBe('fine');
  });
});

describe('the token file', () => {
  test.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer  abc ', 'abc'],
    ['Basic abc', null],
    ['Bearer', null],
    ['Bearer a b', null],
    [undefined, null],
  ])('Authorization %j → %j', (header, want) => expect(bearerOf(header)).toBe(want));

  test('made owner-only, kept, tightened when loosened, replaced by a rotation the gate takes within a second', async () => {
    const dir = tempDir();
    const first = await ensureToken(dir);
    expect(statSync(tokenFile(dir)).mode & 0o777).toBe(0o600);
    expect(await ensureToken(dir)).toBe(first);
    chmodSync(tokenFile(dir), 0o644);
    expect(await ensureToken(dir)).toBe(first);
    expect(statSync(tokenFile(dir)).mode & 0o777).toBe(0o600);

    let now = 0;
    const gate = await TokenGate.open(dir, () => now);
    expect(await gate.admits(first)).toBe(true);
    expect(await gate.admits(`${first}x`)).toBe(false);
    expect(await gate.admits('')).toBe(false);
    expect(await gate.admits(null)).toBe(false);
    const second = await writeToken(dir);
    expect(readFileSync(tokenFile(dir), 'utf8').trim()).toBe(second);
    now = 1_000;
    expect(await gate.admits(first)).toBe(false);
    expect(await gate.admits(second)).toBe(true);
    // Removed or emptied: nobody is admitted (never an open door) until a token is there again.
    rmSync(tokenFile(dir));
    now = 2_000;
    expect(await gate.admits(second)).toBe(false);
    writeFileSync(tokenFile(dir), '\n');
    now = 3_000;
    expect(await gate.admits('')).toBe(false);
    expect(await gate.admits(second)).toBe(false);
    const third = await writeToken(dir);
    now = 4_000;
    expect(await gate.admits(third)).toBe(true);
  });
});
