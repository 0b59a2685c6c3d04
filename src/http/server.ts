import { readFile } from 'node:fs/promises';
import type { IncomingMessage, Server } from 'node:http';
import { isAbsolute, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { HttpConfig } from '../config/http-listen.js';
import type { AllowedHost, ListenAddress } from '../config/http-listen.js';
import { allowedHosts, connectionsCheckingIntervalMs, hostAllowed, misdirectedText } from './host-check.js';
import { WiggumError, systemErrorCode } from '../errors.js';

/** The whole request, body included, arrives within this (or the header timeout, if longer). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface ListeningApi {
  /** `http://127.0.0.1:8377`, with the port really bound (listen port 0 picks one). */
  url: string;
  close(): Promise<void>;
}

/** Serves the app on the configured address, over TLS when the config names its files. */
export async function listen(
  app: Hono,
  http: HttpConfig & { listen: ListenAddress },
  vault: string,
): Promise<ListeningApi> {
  const tls = http.tls === null ? null : await readTls(http.tls, vault);
  // A slow or silent client may not hold a connection open for ever: Node looks for one past its
  // header timeout only every connectionsCheckingInterval (30 s unless said), so that is set too.
  const timeouts = {
    headersTimeout: http.headerTimeoutMs,
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, http.headerTimeoutMs),
    connectionsCheckingInterval: connectionsCheckingIntervalMs(http.headerTimeoutMs),
  };
  // node:https is loaded only to serve TLS: without it the daemon at rest holds about 1 MB less.
  const createServer = tls === null ? {} : { createServer: (await import('node:https')).createServer };
  // Known once bound (listen port 0 picks the port); until then nothing is answered.
  let allowed: AllowedHost[] = [];
  const defaultPort = tls === null ? 80 : 443;
  const server = await new Promise<Server>((resolveServer, reject) => {
    const started = serve(
      {
        fetch: (request: Request, env: { incoming: Pick<IncomingMessage, 'headers'> }) =>
          hostAllowed(env.incoming.headers.host, allowed, defaultPort)
            ? app.fetch(request, env)
            : new Response(misdirectedText(allowed), { status: 421, headers: { 'content-type': 'text/plain' } }),
        hostname: http.listen.host,
        port: http.listen.port,
        serverOptions: { ...tls, ...timeouts },
        ...createServer,
      },
      () => resolveServer(started),
    ) as Server;
    started.once('error', (error) => reject(listenError(error, http.listen)));
  });
  // One more is closed as it comes: a flood of idle connections cannot take every file descriptor.
  server.maxConnections = http.maxConnections;
  const bound = server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : http.listen.port;
  allowed = allowedHosts(http.listen.host, port, http.hosts);
  const host = http.listen.host.includes(':') ? `[${http.listen.host}]` : http.listen.host;
  return {
    url: `${tls === null ? 'http' : 'https'}://${host}:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        // Event streams stay open as long as their task runs: the drain does not wait for them.
        server.closeAllConnections();
      }),
  };
}

async function readTls(files: { cert: string; key: string }, vault: string): Promise<{ cert: Buffer; key: Buffer }> {
  const read = async (what: 'cert' | 'key'): Promise<Buffer> => {
    const path = isAbsolute(files[what]) ? files[what] : resolve(vault, files[what]);
    try {
      return await readFile(path);
    } catch (error) {
      throw new WiggumError(
        'E_CONFIG',
        `daemon.http.tls.${what}: cannot read ${path} (${systemErrorCode(error) ?? String(error)})`,
      );
    }
  };
  return { cert: await read('cert'), key: await read('key') };
}

function listenError(error: unknown, address: ListenAddress): WiggumError {
  const code = systemErrorCode(error);
  const why =
    code === 'EADDRINUSE'
      ? 'the port is in use by another program (another daemon?): pick another port in daemon.http.listen'
      : code === 'EADDRNOTAVAIL'
        ? 'this machine has no such address: use 127.0.0.1 or one of its own addresses'
        : code === 'EACCES'
          ? 'this user may not listen on that port: use a port above 1023'
          : String(error);
  return new WiggumError('E_CONFIG', `daemon.http.listen ${address.shown}: cannot listen: ${why}`);
}
