// A real `redis-server` for the scale-out phase, as test/helpers/redis.ts starts one for the tests:
// 127.0.0.1 on a free random port, its own temp folder, the append-only file on (as in production:
// every queue write pays what it pays on a real host), no RDB snapshots. Spawned detached so it leads
// its own process group, which cleanup.mjs kills on any exit of the bench.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { releaseGroup, tempDir, trackGroup } from './cleanup.mjs';
import { sleep } from './stats.mjs';

/** Starts redis-server; resolves to `{ url, port, dir, stop() }` once it accepts connections. */
export async function startRedis() {
  const dir = tempDir('redis');
  // A port found free can be taken before redis-server binds it: try a few.
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      const child = await launch(port, dir);
      return { url: `redis://127.0.0.1:${port}`, port, dir, stop: () => stop(child) };
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

/** A port nothing listens on right now, chosen by the kernel. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Spawns redis-server and resolves when it logs that it accepts connections; rejects with its output if it exits first. */
function launch(port, dir) {
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
    ...['--save', '', '--appendonly', 'yes', '--daemonize', 'no', '--logfile', ''],
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  trackGroup(child.pid);
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout.off('data', onData);
        child.off('exit', onExit);
        // Keep draining its output: a full pipe would block the server.
        child.stdout.resume();
        child.stderr.resume();
        resolve(child);
      }
    };
    const onExit = (code, signal) => {
      releaseGroup(child.pid);
      reject(new Error(`redis-server on port ${port} exited (${code ?? signal}) before it was ready:\n${output}`));
    };
    child.once('error', (error) =>
      reject(new Error(`redis-server could not start: ${error.message} (npm run install:redis-server installs it)`)),
    );
    child.once('exit', onExit);
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (output += chunk.toString()));
  });
}

/** SIGTERM, SIGKILL after 10 s; resolves once it has exited. */
async function stop(child) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timedOut = await Promise.race([exited.then(() => false), sleep(10_000).then(() => true)]);
    if (timedOut) child.kill('SIGKILL');
    await exited;
  }
  releaseGroup(child.pid);
}
