import { createServer, request } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { rmSync } from 'node:fs';
import type { Logger } from '../log/logger.js';
import { admits } from '../config/allow-list.js';
import type { AllowedEndpoint } from '../config/allow-list.js';

/**
 * How many connections one agent may hold through the proxy at once: an agent's HTTP clients keep
 * a few; a loop that opens connections without end is refused, not served with every file handle.
 */
const MAX_CONNECTIONS = 256;
/** Longest host name an agent's request may carry into the log (DNS's limit). */
const HOST_SHOWN = 253;

/** wiggum's egress proxy for one confined run (`sandbox.network: allow`); `release()` stops it. */
export interface EgressProxy {
  socketPath: string;
  /** Connections refused so far, for the run's record. */
  refused(): number;
  release(): Promise<void>;
}

export interface EgressProxyOptions {
  /** The unix socket it listens on: a folder bound into the sandbox holds it. */
  socketPath: string;
  allow: readonly AllowedEndpoint[];
  logger: Logger;
}

/**
 * An HTTP proxy on a unix socket that admits only the listed endpoints: CONNECT (HTTPS, and any
 * TCP stream an agent tunnels) and plain-HTTP requests in absolute form. Everything else is
 * answered at once (403, 400, 502), never left to time out: an agent CLI that waits on a dead
 * proxy waits for ever (docs/sandbox.md). Names are resolved here, outside the sandbox, which has
 * no DNS of its own.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  let refusedCount = 0;
  const sockets = new Set<Socket>();
  const refuse = (host: string, port: number): void => {
    refusedCount += 1;
    if (refusedCount <= 20)
      options.logger.warn(
        { event: 'sandbox.egress-refused', host: host.slice(0, HOST_SHOWN), port },
        `the agent asked for ${host.slice(0, HOST_SHOWN)}:${port}, which sandbox.allow does not list: refused`,
      );
  };
  const server: Server = createServer((req, res) => forwardRequest(req, res, options.allow, refuse));
  server.maxConnections = MAX_CONNECTIONS;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) =>
    tunnel(req, client, head, options.allow, refuse),
  );
  server.on('clientError', (_error, socket: Socket) => socket.destroy());
  rmSync(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => resolve());
  });
  return {
    socketPath: options.socketPath,
    refused: () => refusedCount,
    release: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(options.socketPath, { force: true });
    },
  };
}

/** `CONNECT host:port`: a byte stream to an admitted endpoint, or an answer saying why not. */
function tunnel(
  req: IncomingMessage,
  client: Socket,
  head: Buffer,
  allow: readonly AllowedEndpoint[],
  refuse: (host: string, port: number) => void,
): void {
  client.on('error', () => client.destroy());
  const target = connectTarget(req.url ?? '');
  if (target === null) return answer(client, 400, 'CONNECT needs host:port');
  if (!admits(allow, target.host, target.port)) {
    refuse(target.host, target.port);
    return answer(client, 403, `${target.host}:${target.port} is not in sandbox.allow`);
  }
  const upstream = connect({ host: target.host.replace(/^\[(.*)\]$/, '$1'), port: target.port });
  upstream.once('connect', () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', (error) => {
    if (client.writable && upstream.bytesRead === 0)
      answer(client, 502, `${target.host}:${target.port}: ${error.message}`);
    else client.destroy();
  });
  client.once('close', () => upstream.destroy());
}

/** A plain-HTTP request in absolute form (`GET http://host:port/path`), forwarded when admitted. */
function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  allow: readonly AllowedEndpoint[],
  refuse: (host: string, port: number) => void,
): void {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    return reply(res, 400, 'wiggum egress proxy: send requests in absolute form (http://host/path), or CONNECT');
  }
  if (url.protocol !== 'http:')
    return reply(res, 400, `wiggum egress proxy: ${url.protocol} is not proxied; use CONNECT`);
  const port = url.port === '' ? 80 : Number(url.port);
  if (!admits(allow, url.hostname, port)) {
    refuse(url.hostname, port);
    return reply(res, 403, `wiggum egress proxy: ${url.hostname}:${port} is not in sandbox.allow`);
  }
  const headers = { ...req.headers };
  delete headers['proxy-connection'];
  delete headers['proxy-authorization'];
  const upstream = request(
    {
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (error) => {
    if (!res.headersSent) reply(res, 502, `wiggum egress proxy: ${url.hostname}:${port}: ${error.message}`);
    else res.destroy();
  });
  req.pipe(upstream);
}

function connectTarget(authority: string): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  if (match === null) return null;
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535 ? { host: match[1] ?? '', port } : null;
}

function answer(client: Socket, status: number, text: string): void {
  const body = `wiggum egress proxy: ${text}\n`;
  const reason = status === 403 ? 'Forbidden' : status === 400 ? 'Bad Request' : 'Bad Gateway';
  client.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain', Connection: 'close' });
  res.end(`${text}\n`);
}
