import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * A real `redis-server` on 127.0.0.1, for the queue tests. `npm test` installs it where it is missing
 * (scripts/redis.mjs).
 */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`, or `redis://:<password>@127.0.0.1:<port>` when it has one. */
  readonly url: string;
  readonly port: number;
  /** Its working folder: the append-only file lives here and nowhere else. */
  readonly dir: string;
  /** SIGTERM (Redis writes its append-only file and leaves), SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
  /** Starts it again on the same port and folder, so it reloads its append-only file. */
  restart(): Promise<void>;
}

/** Every server this test file started, stopped and its folder removed when the file ends. */
const started = new Set<{ child(): ChildProcess | null; dir: string }>();

afterAll(async () => {
  for (const server of started) {
    const child = server.child();
    if (child !== null) await stopChild(child, 5_000);
    rmSync(server.dir, { recursive: true, force: true });
  }
  started.clear();
});

// A vitest worker that dies mid-file must not leave a redis-server behind.
process.once('exit', () => {
  for (const server of started) server.child()?.kill('SIGKILL');
});

/**
 * Starts a `redis-server` on a free random loopback port in a fresh temp folder: append-only file on
 * (a restart keeps the queue, as in production), no RDB snapshots (`--save ''`), nothing written
 * outside the folder. Resolves once it accepts connections. Stopped when the test file ends.
 */
export async function startRedis(options: { password?: string } = {}): Promise<RedisServer> {
  const auth = options.password === undefined ? [] : ['--requirepass', options.password];
  const dir = mkdtempSync(join(tmpdir(), 'wiggum-redis-'));
  let child: ChildProcess | null = null;
  started.add({ child: () => child, dir });
  // A port found free can be taken before redis-server binds it: try a few.
  let port = 0;
  for (let attempt = 1; child === null; attempt += 1) {
    port = await freePort();
    try {
      child = await launch(port, dir, auth);
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
  return {
    url: `redis://${options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`}127.0.0.1:${port}`,
    port,
    dir,
    stop: async (graceMs = 10_000) => {
      if (child !== null) await stopChild(child, graceMs);
      child = null;
    },
    restart: async () => {
      if (child !== null) await stopChild(child, 10_000);
      child = null;
      child = await launch(port, dir, auth);
    },
  };
}

/** A port nothing listens on right now, chosen by the kernel. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('the kernel gave no port'));
      });
    });
  });
}

/**
 * Spawns redis-server and resolves when it logs that it accepts connections (after loading its
 * append-only file, when there is one); rejects with its output if it exits first.
 */
function launch(port: number, dir: string, auth: string[]): Promise<ChildProcess> {
  const args = [
    ...auth,
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
    ...['--save', '', '--appendonly', 'yes', '--daemonize', 'no', '--logfile', ''],
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.off('exit', onExit);
        child.stdout?.resume();
        resolve(child);
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      reject(new Error(`redis-server on port ${port} exited (${code ?? signal}) before it was ready:\n${output}`));
    child.once('error', (error) =>
      reject(new Error(`redis-server could not start: ${error.message}; run npm run install:redis-server`)),
    );
    child.once('exit', onExit);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  });
}

/** SIGTERM, then SIGKILL once `graceMs` has passed; resolves when the process has exited. */
function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
