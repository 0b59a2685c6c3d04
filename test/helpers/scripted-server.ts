import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The plumbing of the scripted API servers (anthropic-server.ts, openai-server.ts): an HTTP server
 * on 127.0.0.1 at a random port that reads each request's JSON body before handing it on, and the
 * ways to answer (JSON, server-sent events).
 */

export interface JsonRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (an object), or null. */
  body: Record<string, unknown> | null;
}

export interface ListeningServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Closes open connections too. */
  close(): Promise<void>;
}

export interface ScriptedServerHandlers {
  /** Answers a request whose body was read. */
  request(request: JsonRequest, res: ServerResponse): void;
  /** Answers a request whose body could not be read (too large, a broken connection). */
  unreadable(error: unknown, res: ServerResponse): void;
}

const BODY_LIMIT = 32 * 1024 * 1024;

export async function listenScripted(handlers: ScriptedServerHandlers): Promise<ListeningServer> {
  const server: Server = createServer((req, res) => {
    void readBody(req).then(
      (raw) => {
        const url = req.url ?? '/';
        handlers.request(
          {
            method: req.method ?? 'GET',
            path: url.split('?')[0] ?? '/',
            url,
            headers: req.headers,
            body: parseJson(raw),
          },
          res,
        );
      },
      (error: unknown) => handlers.unreadable(error, res),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The default log of a scripted server: lines on stderr, tagged with its name. */
export function stderrLog(name: string): (line: string) => void {
  return (line) => process.stderr.write(`[${name}] ${line}\n`);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Starts a 200 event stream; `event` writes one event named by its `type`. */
export function startEvents(
  res: ServerResponse,
  headers: Record<string, string> = {},
): (data: { type: string } & Record<string, unknown>) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  return (data) => {
    res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  };
}

function parseJson(raw: string): Record<string, unknown> | null {
  if (raw === '') return null;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw new Error(`request body over ${BODY_LIMIT} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
