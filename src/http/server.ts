import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { isAbsolute, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { HttpConfig } from '../config/config.js';
import type { ListenAddress } from '../config/http-listen.js';
import { WiggumError, systemErrorCode } from '../errors.js';

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
  // node:https is loaded only to serve TLS: without it the daemon at rest holds about 1 MB less.
  const overTls = tls === null ? {} : { createServer: (await import('node:https')).createServer, serverOptions: tls };
  const server = await new Promise<Server>((resolveServer, reject) => {
    const started = serve(
      {
        fetch: app.fetch,
        hostname: http.listen.host,
        port: http.listen.port,
        ...overTls,
      },
      () => resolveServer(started),
    ) as Server;
    started.once('error', (error) => reject(listenError(error, http.listen)));
  });
  // A slow or silent client may not hold a connection open for ever.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  const bound = server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : http.listen.port;
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
