import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, test } from 'vitest';
import type { HttpConfig } from '../../src/config/http-listen.js';
import { parseListen } from '../../src/config/http-listen.js';
import type { ListenAddress } from '../../src/config/http-listen.js';
import { listen } from '../../src/http/server.js';
import type { ListeningApi } from '../../src/http/server.js';
import { tempDir } from '../helpers/temp-dir.js';

const servers: ListeningApi[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await server.close();
});

async function serveOk(
  limits: Partial<Pick<HttpConfig, 'hosts' | 'maxConnections' | 'headerTimeoutMs'>> = {},
): Promise<{ port: number }> {
  const app = new Hono();
  app.get('*', (c) => c.text('ok'));
  const http: HttpConfig & { listen: ListenAddress } = {
    listen: parseListen('127.0.0.1:0')!,
    insecure: false,
    tls: null,
    hosts: [],
    maxConnections: 256,
    headerTimeoutMs: 10_000,
    ...limits,
  };
  const server = await listen(app, http, tempDir());
  servers.push(server);
  return { port: Number(new URL(server.url).port) };
}

/** A raw connection to 127.0.0.1:port, and everything it receives until it is closed. */
function open(port: number): { socket: Socket; connected: Promise<void>; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  return {
    socket,
    connected: new Promise((resolve) => socket.once('connect', () => resolve())),
    closed: new Promise((resolve) => socket.once('close', () => resolve(received))),
  };
}

/** One request on a kept-alive connection: resolves with the status line once the answer is in. */
function ask(socket: Socket, host: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const onData = (chunk: Buffer): void => {
      got += chunk.toString('latin1');
      if (/\r\n\r\n[\s\S]*/.test(got) && /content-length: (\d+)/i.test(got)) {
        socket.off('data', onData);
        resolve(got.split('\r\n')[0]!);
      }
    };
    socket.on('data', onData);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe('the API server, on real sockets', () => {
  test('answers its own host names, and 421 to any other Host', async () => {
    const { port } = await serveOk();
    for (const [host, status] of [
      [`127.0.0.1:${port}`, '200'],
      [`localhost:${port}`, '200'],
      [`[::1]:${port}`, '200'],
      ['evil.example', '421'],
      [`evil.example:${port}`, '421'],
      ['127.0.0.1', '421'],
    ] as const) {
      const { socket, connected } = open(port);
      await connected;
      expect([host, await ask(socket, host)]).toEqual([
        host,
        `HTTP/1.1 ${status} ${status === '200' ? 'OK' : 'Misdirected Request'}`,
      ]);
      socket.destroy();
    }
  });

  test('closes a connection beyond max_connections as it comes; one closed makes room', async () => {
    const { port } = await serveOk({ maxConnections: 2 });
    const held = [open(port), open(port)];
    for (const c of held) {
      await c.connected;
      // Answered: the server counts it.
      expect(await ask(c.socket, `127.0.0.1:${port}`)).toBe('HTTP/1.1 200 OK');
    }
    const third = open(port);
    third.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    expect(await third.closed).toBe('');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const fourth = open(port);
    await fourth.connected;
    expect(await ask(fourth.socket, `127.0.0.1:${port}`)).toBe('HTTP/1.1 200 OK');
  });

  test('a client that sends half its headers is answered 408 and cut off at the header timeout, not 30 s later', async () => {
    const { port } = await serveOk({ headerTimeoutMs: 1000 });
    const slow = open(port);
    await slow.connected;
    slow.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Half: `);
    // Node's default check every 30 s would hold it past this generous bound.
    const guard = new Promise<string>((resolve) => setTimeout(() => resolve('still open after 20 s'), 20_000).unref());
    const received = await Promise.race([slow.closed, guard]);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
  });
});
