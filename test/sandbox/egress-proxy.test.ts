import { execFile } from 'node:child_process';
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import { onTestFinished, describe, expect, test } from 'vitest';
import { startEgressProxy } from '../../src/sandbox/egress-proxy.js';
import { parseAllowEntry } from '../../src/config/allow-list.js';
import type { AllowedEndpoint } from '../../src/config/allow-list.js';
import { forwarderPort, proxyEnvironment } from '../../src/sandbox/proxy-env.js';
import { REPO_ROOT } from '../helpers/child.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { tempDir } from '../helpers/temp-dir.js';
import { listener } from '../helpers/listener.js';

const FORWARDER = join(REPO_ROOT, 'dist', 'harness', 'egress-forwarder.js');

function endpoint(text: string): AllowedEndpoint {
  const parsed = parseAllowEntry(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

async function proxyFor(
  allow: AllowedEndpoint[],
): Promise<{ socketPath: string; lines: ReturnType<typeof captureLogger>['lines']; refused: () => number }> {
  const { logger, lines } = captureLogger();
  const socketPath = join(tempDir('wiggum-egress-'), 'proxy.sock');
  const proxy = await startEgressProxy({ socketPath, allow, logger });
  onTestFinished(() => proxy.release());
  return { socketPath, lines, refused: () => proxy.refused() };
}

/** One request through the proxy's socket: CONNECT then GET over the tunnel, or a plain absolute-form GET. */
function viaProxy(
  socketPath: string,
  method: 'CONNECT' | 'GET',
  target: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path: target, headers: { host: target } });
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) return resolve({ status: res.statusCode ?? 0, body: '' });
      socket.write(`GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.once('end', () => resolve({ status: 200, body: text }));
    });
    req.once('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('the egress proxy', () => {
  test('tunnels and forwards to an allowed endpoint, refuses the rest at once and logs it', async () => {
    const allowed = await listener('allowed');
    const other = await listener('other');
    const { socketPath, lines, refused } = await proxyFor([endpoint(`127.0.0.1:${allowed.port}`)]);

    const tunnelled = await viaProxy(socketPath, 'CONNECT', `127.0.0.1:${allowed.port}`);
    expect(tunnelled.body).toContain('hello from allowed');
    const forwarded = await viaProxy(socketPath, 'GET', `http://127.0.0.1:${allowed.port}/x`);
    expect(forwarded).toEqual({ status: 200, body: 'hello from allowed\n' });

    expect((await viaProxy(socketPath, 'CONNECT', `127.0.0.1:${other.port}`)).status).toBe(403);
    const plain = await viaProxy(socketPath, 'GET', `http://127.0.0.1:${other.port}/`);
    expect(plain.status).toBe(403);
    expect(plain.body).toContain('not in sandbox.allow');
    expect((await viaProxy(socketPath, 'CONNECT', `localhost:${allowed.port}`)).status).toBe(403);
    expect(other.hits()).toBe(0);
    expect(allowed.hits()).toBe(2);
    expect(refused()).toBe(3);
    expect(lines.filter((line) => line.event === 'sandbox.egress-refused')).toHaveLength(3);
  });

  test('an unreachable allowed endpoint is answered 502 at once, not left to time out', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
      });
    });
    const { socketPath } = await proxyFor([endpoint(`127.0.0.1:${port}`)]);
    const plain = await viaProxy(socketPath, 'GET', `http://127.0.0.1:${port}/`);
    expect(plain.status).toBe(502);
    expect(plain.body).toContain('ECONNREFUSED');
    expect((await viaProxy(socketPath, 'CONNECT', `127.0.0.1:${port}`)).status).toBe(502);
  });

  test('bad requests get an answer that says what to send instead', async () => {
    const { socketPath } = await proxyFor([]);
    expect((await viaProxy(socketPath, 'CONNECT', 'no-port-here')).status).toBe(400);
    const relative = await viaProxy(socketPath, 'GET', '/just/a/path');
    expect(relative.status).toBe(400);
    expect(relative.body).toContain('absolute form');
  });
});

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { env }, (error, stdout, stderr) =>
      resolve({
        code: error === null ? 0 : typeof error.code === 'number' ? error.code : null,
        signal: error?.signal ?? null,
        stdout,
        stderr,
      }),
    );
  });
}

describe('the forwarder inside an empty network namespace (real bwrap)', () => {
  test('the agent reaches an allowed listener only through the proxy, and nothing else on the loopback', async () => {
    const allowed = await listener('allowed');
    const other = await listener('other');
    const allow = [endpoint(`127.0.0.1:${allowed.port}`)];
    const { socketPath } = await proxyFor(allow);
    const port = forwarderPort(allow);
    const script = [
      `curl -s -m 5 http://127.0.0.1:${allowed.port}/ ; echo "proxied=$?"`,
      `curl -s -m 5 --noproxy '*' http://127.0.0.1:${allowed.port}/ ; echo "direct=$?"`,
      `curl -s -m 5 http://127.0.0.1:${other.port}/ ; echo "other=$?"`,
    ].join('\n');
    const result = await run(
      'bwrap',
      [
        ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-net', '--unshare-pid'],
        ...['--die-with-parent', '--cap-drop', 'ALL', '--bind', socketPath, socketPath],
        ...['--', process.execPath, FORWARDER, socketPath, String(port), '/bin/sh', '-c', script],
      ],
      { PATH: process.env.PATH ?? '', ...proxyEnvironment(port) },
    );
    expect(result.stdout).toContain('hello from allowed');
    expect(result.stdout).toContain('proxied=0');
    expect(result.stdout).toMatch(/direct=[1-9]/);
    expect(result.stdout).toContain('not in sandbox.allow');
    expect(other.hits()).toBe(0);
    expect(allowed.hits()).toBe(1);
    expect(result.code).toBe(0);
  });

  test('a proxy that does not answer ends the run at once with a message', async () => {
    const socketPath = join(tempDir('wiggum-egress-'), 'nobody.sock');
    const result = await run(process.execPath, [FORWARDER, socketPath, '3128', '/bin/sh', '-c', 'echo agent ran'], {
      PATH: process.env.PATH ?? '',
    });
    expect(result.code).toBe(125);
    expect(result.stdout).not.toContain('agent ran');
    expect(result.stderr).toContain('egress proxy does not answer');
  });

  test("the agent's exit code and its signal are the forwarder's", async () => {
    const { socketPath } = await proxyFor([]);
    const exited = await run(process.execPath, [FORWARDER, socketPath, '3199', '/bin/sh', '-c', 'exit 7'], {});
    expect(exited.code).toBe(7);
    const killed = await run(process.execPath, [FORWARDER, socketPath, '3199', '/bin/sh', '-c', 'kill -TERM $$'], {});
    expect(killed.signal).toBe('SIGTERM');
  });
});
