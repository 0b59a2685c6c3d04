// The first process of a confined run with `sandbox.network: allow`, inside the sandbox's empty
// network namespace:
//
//   node egress-forwarder.js SOCKET PORT COMMAND [ARGS…]
//
// It listens on 127.0.0.1:PORT (the proxy address wiggum gives the agent in HTTP_PROXY and the
// rest), carries each connection to wiggum's egress proxy on the unix socket SOCKET (a folder bound
// into the sandbox), then runs COMMAND as its child, with the same stdio, environment and process
// group, and ends as it ends. It checks first that the proxy answers: with a dead proxy some agent
// CLIs wait for the network for ever, so a broken `allow` fails the iteration at once instead.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';

const [socketPath, portText, command, ...args] = process.argv.slice(2);
const SIGNALS_PASSED_ON = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

function fail(message: string): void {
  process.stderr.write(`wiggum: ${message}\n`);
  process.exitCode = 125;
}

function proxyAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

function carry(client: Socket, path: string): void {
  const upstream = connect(path);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
}

async function main(): Promise<void> {
  const port = Number(portText);
  if (socketPath === undefined || command === undefined || !Number.isInteger(port) || port < 1 || port > 65_535)
    return fail('egress-forwarder: usage: SOCKET PORT COMMAND [ARGS…]');
  if (!(await proxyAnswers(socketPath)))
    return fail(
      `the sandbox's egress proxy does not answer at ${socketPath}: the agent would have no network at all (sandbox.network: allow). The run ends here; see the daemon's log`,
    );
  const clients = new Set<Socket>();
  const server = createServer((client) => {
    clients.add(client);
    client.once('close', () => clients.delete(client));
    carry(client, socketPath);
  });
  server.on('error', (error) =>
    fail(`the sandbox's proxy address 127.0.0.1:${port} could not be opened: ${error.message}`),
  );
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const child = spawn(command, args, { stdio: 'inherit' });
  for (const signal of SIGNALS_PASSED_ON) process.on(signal, () => child.kill(signal));
  child.once('error', (error) => {
    server.close();
    fail(`${command} could not be started: ${error.message}`);
  });
  child.once('exit', (code, signal) => {
    // What the agent left connected would keep this process, and so the run, alive.
    server.close();
    for (const client of clients) client.destroy();
    for (const name of SIGNALS_PASSED_ON) process.removeAllListeners(name);
    if (signal !== null) process.kill(process.pid, signal);
    else process.exitCode = code ?? 1;
  });
}

void main();
