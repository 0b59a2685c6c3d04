import { existsSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllowEntry } from '../config/allow-list.js';
import type { AllowedEndpoint } from '../config/allow-list.js';
import type { Logger } from '../log/logger.js';
import { startEgressProxy } from './egress-proxy.js';
import { forwarderPort, proxyEnvironment } from './proxy-env.js';

/** A confined run behind wiggum's egress proxy (`sandbox.network: allow`): how its command changes. */
export interface EgressRun {
  /** The forwarder first (`node egress-forwarder.js SOCKET PORT COMMAND ARGS…`), the agent its child. */
  command: string;
  args: string[];
  /** Over the agent's environment: every proxy variable at the forwarder. */
  env: Record<string, string>;
  /** The socket's folder, bound writable into the sandbox. */
  socketDir: string;
  /** Folders the forwarder needs to be visible: node's and wiggum's own `harness/` (read-only where hidden). */
  tools: string[];
  /** Stops the proxy: after the run. */
  release(): Promise<void>;
}

/**
 * Starts the run's egress proxy on a socket in `runDir/net/` and wraps the command in the
 * forwarder. The entries of `allow` were checked with the config (sandbox-settings.ts); one that
 * does not parse here admits nothing.
 */
export async function startEgressRun(request: {
  allow: readonly string[];
  runDir: string;
  command: string;
  args: readonly string[];
  logger: Logger;
}): Promise<EgressRun> {
  const allow = request.allow
    .map((entry) => parseAllowEntry(entry))
    .filter((entry): entry is AllowedEndpoint => typeof entry !== 'string');
  const socketDir = join(request.runDir, 'net');
  await mkdir(socketDir, { recursive: true, mode: 0o700 });
  const proxy = await startEgressProxy({ socketPath: join(socketDir, 'proxy.sock'), allow, logger: request.logger });
  const port = forwarderPort(allow);
  const forwarder = forwarderScript();
  return {
    command: process.execPath,
    args: [forwarder, proxy.socketPath, String(port), request.command, ...request.args],
    env: proxyEnvironment(port),
    socketDir: await realpath(socketDir),
    tools: [dirname(process.execPath), dirname(await realpath(process.execPath)), dirname(forwarder)],
    release: () => proxy.release(),
  };
}

/** The forwarder beside this module's folder in wiggum's build (from the sources, as tests run them: the build's). */
function forwarderScript(): string {
  const built = fileURLToPath(new URL('../harness/egress-forwarder.js', import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL('../../dist/harness/egress-forwarder.js', import.meta.url));
}
