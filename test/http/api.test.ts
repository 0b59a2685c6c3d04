import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { parsePromText, sumOf, valueOf } from '../helpers/prom-text.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

const daemons = drainedAfterEach();
/**
 * A wait's guard: just under vitest's test timeout (300 s), so that a busy machine is only slower and a
 * stuck wait still says what it waited for. Finite: a timer of Infinity fires at once.
 */
const UNTIL_VITEST_TIMEOUT = 280_000;
const HARNESS_SECRET = `harness-secret-${process.pid}-${Date.now()}`;
const DAEMON_SECRET = `daemon-secret-${process.pid}-${Date.now()}`;
const STORIES = '- [ ] US-001 One\n- [ ] US-002 Two\n';

interface Api {
  vault: TestVault;
  daemon: DaemonProcess;
  url: string;
  token: string;
  gates: string;
  /** fetch with the token, unless headers say otherwise. */
  call(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
}

/** A real daemon with the API on a free loopback port (listen port 0), and a gated fake agent. */
async function apiDaemon(config: Record<string, unknown> = {}): Promise<Api> {
  const gates = join(tempRoot(), 'gates');
  mkdirSync(gates, { recursive: true });
  const vault = await makeVault({
    fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gates, FAKE_PRINT: 'agent says hello', HARNESS_SECRET },
    config: { daemon: { http: { listen: '127.0.0.1:0' } }, ...config },
  });
  const daemon = DaemonProcess.start(vault.root, [], { DAEMON_SECRET });
  daemons.push(daemon);
  const listening = await daemon.waitForEvent('api.listening', {}, UNTIL_VITEST_TIMEOUT);
  const url = String(listening.url);
  const token = readFileSync(join(vault.root, '.wiggum', 'http-token'), 'utf8').trim();
  return {
    vault,
    daemon,
    url,
    token,
    gates,
    call: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (init.token !== null && !headers.has('authorization'))
        headers.set('authorization', `Bearer ${init.token ?? token}`);
      return fetch(`${url}${path}`, { ...init, headers });
    },
  };
}

let roots = 0;
function tempRoot(): string {
  const root = join(process.env.TMPDIR ?? '/tmp', `wiggum-api-${process.pid}-${roots++}-${Date.now()}`);
  mkdirSync(root, { recursive: true });
  return root;
}

/** The fake agent's run N has started (it leaves run-N in the marks folder first). */
const runStarted = (api: Api, run: number): Promise<void> =>
  waitFor(() => existsSync(join(api.vault.marks, `run-${run}`)), `run ${run} started`, UNTIL_VITEST_TIMEOUT);
const open = (api: Api, run: number): void => writeFileSync(join(api.gates, `go-${run}`), '');
const checkpointStatus = (file: string): string | null =>
  /^\s+status: (\w+)/m.exec(readFileSync(file, 'utf8'))?.[1] ?? null;

/** Reads an event stream until `until` says the text so far is enough; returns it. */
async function readStream(response: Response, until: (text: string) => boolean): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (!until(text)) {
      const chunk = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

describe('the HTTP API on a real daemon', () => {
  test('the token: made 0600 at the first start, needed everywhere but /healthz, kept over a restart, rotated while the daemon runs', async () => {
    const api = await apiDaemon();
    const file = join(api.vault.root, '.wiggum', 'http-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(api.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect((await api.call('/healthz', { token: null })).status).toBe(200);
    // The page's address without the token: a page that says how to open it (401), and holds no data.
    const signIn = await api.call('/', { token: null });
    expect(signIn.status).toBe(401);
    expect(signIn.headers.get('content-type')).toMatch(/^text\/html/);
    const signInText = await signIn.text();
    expect(signInText).toContain('.wiggum/http-token');
    expect(signInText).not.toContain(api.vault.root);
    for (const path of ['/api/v1/state', '/metrics', '/api/v1/tasks/x', '/api/v1/tasks/x/events', '/nowhere']) {
      const none = await api.call(path, { token: null });
      expect(none.status, path).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      const envelope = (await none.json()) as { error: { code: string; message: string } };
      expect(Object.keys(envelope)).toEqual(['error']);
      expect(envelope.error.code).toBe('unauthorized');
      expect((await api.call(path, { token: `${api.token}x` })).status, path).toBe(401);
    }
    // The page alone takes its token in its URL; the API never does.
    expect((await api.call(`/?token=${api.token}`, { token: null })).status).toBe(200);
    expect((await api.call(`/api/v1/state?token=${api.token}`, { token: null })).status).toBe(401);

    const rotated = await runCli(['http-token', '--rotate', '--vault', api.vault.root]);
    expect(rotated.code).toBe(0);
    const fresh = rotated.stdout.trim();
    expect(fresh).not.toBe(api.token);
    expect(readFileSync(file, 'utf8').trim()).toBe(fresh);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The daemon looks at the file at most once a second: the old token is refused from then on.
    await waitFor(
      async () => (await api.call('/api/v1/state')).status === 401,
      'the old token refused',
      UNTIL_VITEST_TIMEOUT,
    );
    expect((await api.call('/api/v1/state', { token: fresh })).status).toBe(200);

    await api.daemon.drain();
    const again = DaemonProcess.start(api.vault.root);
    daemons.push(again);
    const url = String((await again.waitForEvent('api.listening', {}, UNTIL_VITEST_TIMEOUT)).url);
    expect(readFileSync(file, 'utf8').trim()).toBe(fresh);
    expect((await fetch(`${url}/api/v1/state`, { headers: { authorization: `Bearer ${fresh}` } })).status).toBe(200);
  });

  test('state and one task are what status --json and status ID --json say; events follow the agent across iterations', async () => {
    const api = await apiDaemon();
    const file = api.vault.task('streamed', `---\ntitle: Streamed\nmax_iterations: 5\n---\n${STORIES}`);
    await runStarted(api, 1);

    // The API answers from the daemon's own picture, which lists the task from the moment it was
    // queued; the CLI reads status.json, which the daemon writes a moment later (at most every 200 ms).
    const state = (await (await api.call('/api/v1/state')).json()) as Record<string, unknown>;
    let cli: Record<string, unknown> = {};
    await waitFor(
      async () => {
        cli = JSON.parse((await runCli(['status', '--json', '--vault', api.vault.root])).stdout) as Record<
          string,
          unknown
        >;
        return (cli.tasks as { id: string }[]).some((t) => t.id === 'streamed');
      },
      'status --json lists the task',
      UNTIL_VITEST_TIMEOUT,
    );
    expect(state.vault).toBe(cli.vault);
    expect(state.counts).toEqual(cli.counts);
    expect(Object.keys(state).sort()).toEqual(Object.keys(cli).sort());
    expect((state.tasks as { id: string }[]).map((t) => t.id)).toEqual(['streamed']);

    const one = await api.call('/api/v1/tasks/streamed');
    expect(one.headers.get('content-type')).toMatch(/^application\/json/);
    const detail = (await one.json()) as { id: string; file: string; state: string };
    const cliDetail = JSON.parse(
      (await runCli(['status', 'streamed', '--json', '--vault', api.vault.root])).stdout,
    ) as typeof detail;
    expect(detail).toMatchObject({ id: cliDetail.id, file: cliDetail.file, state: cliDetail.state });

    const stream = await api.call('/api/v1/tasks/streamed/events');
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    open(api, 1);
    // Iteration 1's output, then iteration 2's header once it starts: the stream went on into it.
    const text = await readStream(stream, (sofar) => sofar.includes('iteration 2'));
    expect(text).toMatch(/^event: output$/m);
    expect(text).toMatch(/^data: .*iteration 1/m);
    expect(text).toMatch(/^data: .*agent says hello/m);
    expect(text).toMatch(/^data: .*iteration 2/m);
    // The task ends (two stories, two runs): the stream says so and closes.
    const tail = await api.call('/api/v1/tasks/streamed/events');
    open(api, 2);
    const ended = await readStream(tail, (sofar) => sofar.includes('event: end'));
    expect(ended).toMatch(/^event: end\ndata: \{"status":"(done|gone)"\}$/m);
    await waitFor(() => !existsSync(file), 'the task in Done/', UNTIL_VITEST_TIMEOUT);

    // /metrics over HTTP, read by a strict text-format parser, agrees with the vault.
    await api.daemon.waitForEvent('task.done', { taskId: 'streamed' }, UNTIL_VITEST_TIMEOUT);
    const scrape = await api.call('/metrics');
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const metrics = parsePromText(await scrape.text());
    expect(valueOf(metrics, 'wiggum_tasks', { state: 'done' })).toBe(1);
    expect(valueOf(metrics, 'wiggum_tasks', { state: 'queued' })).toBe(0);
    expect(valueOf(metrics, 'wiggum_tasks', { state: 'running' })).toBe(0);
    expect(sumOf(metrics, 'wiggum_harness_runs_total', { harness: 'fake' })).toBe(2);
    expect(metrics.get('wiggum_task_pickup_seconds')?.type).toBe('histogram');
  });

  test('stop, resume, retry and context have the CLI’s effects on the files', async () => {
    const api = await apiDaemon();
    const file = api.vault.task('steered', `---\ntitle: Steered\nmax_iterations: 5\n---\n${STORIES}`);
    await runStarted(api, 1);

    const context = await api.call('/api/v1/tasks/steered/context', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'use the blue palette' }),
    });
    expect(context.status).toBe(200);
    expect(await context.json()).toMatchObject({ ok: true, id: 'steered' });

    const stop = await api.call('/api/v1/tasks/steered/stop', { method: 'POST' });
    expect(stop.status).toBe(200);
    expect(existsSync(file.replace(/\.md$/, '.stop'))).toBe(true);
    open(api, 1);
    await waitFor(() => checkpointStatus(file) === 'stopped', 'the checkpoint says stopped', UNTIL_VITEST_TIMEOUT);

    const resume = await api.call('/api/v1/tasks/steered/resume', { method: 'POST' });
    expect(resume.status).toBe(200);
    expect(existsSync(file.replace(/\.md$/, '.stop'))).toBe(false);
    await runStarted(api, 2);
    // The context reached the next prompt (the fake agent keeps each prompt it read).
    expect(readFileSync(join(api.vault.marks, 'run-2'), 'utf8')).toContain('use the blue palette');
    // Every later run may go on: whether the stopped run finished its story before the stop took
    // it depends on the machine's speed, so the task may need one run more to reach Done/.
    for (let run = 2; run <= 5; run += 1) open(api, run);
    await waitFor(
      () => existsSync(join(api.vault.root, 'Done', 'steered.md')),
      'steered in Done/',
      UNTIL_VITEST_TIMEOUT,
    );

    const retry = await api.call('/api/v1/tasks/steered/retry', { method: 'POST' });
    expect(retry.status).toBe(200);
    const retried = (await retry.json()) as { ok: boolean; id: string; message: string };
    expect(retried).toMatchObject({ ok: true, id: 'steered' });
    expect(retried.message).toContain('Approved');
    await api.daemon.waitForEvent('task.queued', { taskId: 'steered' }, UNTIL_VITEST_TIMEOUT);

    // An action on a task that is not where it can act is a conflict, said in the envelope.
    writeFileSync(join(api.vault.root, 'Done', 'finished.md'), '---\ntitle: Finished\nstate: Done\n---\nbody\n');
    const conflict = await api.call('/api/v1/tasks/finished/stop', { method: 'POST' });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { error: { message: string } }).error.message).toContain('has ended');
  });

  test('bad input: unknown ids, path characters, huge and malformed bodies, other origins, a burst; no secret in any answer', async () => {
    const api = await apiDaemon();
    api.vault.task('busy', `---\ntitle: Busy\nmax_iterations: 5\n---\n${STORIES}`);
    await runStarted(api, 1);
    const bodies: string[] = [];
    const keep = async (response: Response): Promise<Response> => {
      bodies.push(await response.clone().text());
      return response;
    };

    const unknown = await keep(await api.call('/api/v1/tasks/no-such-task'));
    expect(unknown.status).toBe(404);
    const missing = (await unknown.json()) as { error: { code: string; message: string } };
    expect(missing.error.code).toBe('not_found');
    expect(missing.error.message).toContain('no-such-task');
    for (const id of ['..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f%2e%2e', '..%5C..%5Cetc', 'a%00b', '-rf', '.hidden']) {
      const answer = await keep(await api.call(`/api/v1/tasks/${id}`));
      expect([400, 404], id).toContain(answer.status);
      expect(((await answer.json()) as { error: unknown }).error, id).toBeDefined();
    }
    const traversal = await keep(await api.call('/api/v1/tasks/..%2F..%2Fevil/stop', { method: 'POST' }));
    expect(traversal.status).toBe(400);
    expect(existsSync(join(api.vault.root, '..', 'evil.stop'))).toBe(false);

    const json = { 'content-type': 'application/json' };
    const big = await keep(
      await api.call('/api/v1/tasks/busy/context', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ text: 'a'.repeat(200_000) }),
      }),
    );
    expect(big.status).toBe(413);
    const notJson = await keep(
      await api.call('/api/v1/tasks/busy/context', { method: 'POST', headers: json, body: '{text' }),
    );
    expect(notJson.status).toBe(400);
    const wrongShape = await keep(
      await api.call('/api/v1/tasks/busy/context', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ text: '', more: 1 }),
      }),
    );
    expect(wrongShape.status).toBe(400);
    const plain = await keep(
      await api.call('/api/v1/tasks/busy/context', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'hi',
      }),
    );
    expect(plain.status).toBe(415);
    const nowhere = await keep(await api.call('/api/v2/anything'));
    expect(nowhere.status).toBe(404);
    expect(((await nowhere.json()) as { error: { code: string } }).error.code).toBe('not_found');

    const cors = await api.call('/api/v1/state', { headers: { origin: 'http://evil.example' } });
    const preflight = await api.call('/api/v1/tasks/busy/stop', {
      method: 'OPTIONS',
      token: null,
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    for (const answer of [cors, preflight])
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);

    // A burst: every answer is 200 or 503 (busy, try again), and the daemon keeps running its task.
    const burst = await Promise.all(Array.from({ length: 200 }, () => api.call('/api/v1/state').then(keep)));
    const codes = new Set(burst.map((answer) => answer.status));
    expect([...codes].every((code) => code === 200 || code === 503)).toBe(true);
    expect(codes.has(200)).toBe(true);
    open(api, 1);
    await runStarted(api, 2);

    bodies.push(await (await api.call('/metrics')).text(), await (await api.call('/api/v1/tasks/busy')).text());
    for (const body of bodies) {
      expect(body).not.toContain(HARNESS_SECRET);
      expect(body).not.toContain(DAEMON_SECRET);
      expect(body).not.toContain(api.token);
    }
  });

  test('a non-loopback address without TLS or insecure: true is refused at start, saying how to fix it', async () => {
    const vault = await makeVault();
    appendFileSync(join(vault.root, '.wiggum', 'config.yaml'), 'daemon:\n  http:\n    listen: 0.0.0.0:0\n');
    const result = await runCli(['start', '--vault', vault.root]);
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).toMatch(/tls/i);
    expect(result.stdout + result.stderr).toContain('insecure: true');
  });

  test('a port in use stops the start with exit 2, saying so, and leaves nothing running', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const vault = await makeVault({ config: { daemon: { http: { listen: `127.0.0.1:${port}` } } } });
      const result = await runCli(['start', '--vault', vault.root]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('the port is in use');
    } finally {
      holder.close();
    }
  });

  test('over TLS on a non-loopback address: https answers with the token, plain http does not', async () => {
    // A committed self-signed pair (test/fixtures/tls): no openssl needed where the tests run.
    const dir = join(REPO_ROOT, 'test', 'fixtures', 'tls');
    const vault = await makeVault({
      config: {
        daemon: { http: { listen: '0.0.0.0:0', tls: { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') } } },
      },
    });
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    const url = String((await daemon.waitForEvent('api.listening', {}, UNTIL_VITEST_TIMEOUT)).url);
    expect(url).toMatch(/^https:\/\/0\.0\.0\.0:\d+$/);
    const port = Number(new URL(url).port);
    const token = readFileSync(join(vault.root, '.wiggum', 'http-token'), 'utf8').trim();
    const get = (headers: Record<string, string>): Promise<number> =>
      new Promise((resolve, reject) => {
        const request = httpsGet(
          {
            host: '127.0.0.1',
            port,
            path: '/api/v1/state',
            headers,
            ca: readFileSync(join(dir, 'cert.pem')),
            checkServerIdentity: () => undefined,
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
      });
    expect(await get({ authorization: `Bearer ${token}` })).toBe(200);
    expect(await get({})).toBe(401);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
