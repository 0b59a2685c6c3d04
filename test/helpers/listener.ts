import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { onTestFinished } from 'vitest';

/** A listener on 127.0.0.1 that answers every request with its own name and counts them; closed after the test. */
export async function listener(name: string): Promise<{ port: number; hits: () => number }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits += 1;
    res.end(`hello from ${name}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, hits: () => hits };
}
