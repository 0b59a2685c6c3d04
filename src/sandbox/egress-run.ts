import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
  const place = socketPlace(request.runDir, tmpdir());
  const socketDir = place.kind === 'run' ? place.dir : await mkdtemp(place.prefix);
  await mkdir(socketDir, { recursive: true, mode: 0o700 });
  const proxy = await startEgressProxy({ socketPath: join(socketDir, SOCKET), allow, logger: request.logger });
  const port = forwarderPort(allow);
  const forwarder = forwarderScript();
  return {
    command: process.execPath,
    args: [forwarder, proxy.socketPath, String(port), request.command, ...request.args],
    env: proxyEnvironment(port),
    socketDir: await realpath(socketDir),
    tools: [dirname(process.execPath), dirname(await realpath(process.execPath)), dirname(forwarder)],
    release: async () => {
      await proxy.release();
      if (place.kind === 'temp') await rm(socketDir, { recursive: true, force: true });
    },
  };
}

const SOCKET = 'proxy.sock';

/** The longest unix socket path Linux binds is 107 bytes (sun_path); a margin for a longer name. */
const SOCKET_PATH_MAX = 100;

/**
 * Pure: where the run's proxy socket goes: in the run's folder (`runDir/net/`) when its path fits a
 * unix socket's, else in a new folder of the temp dir (a vault deep in a home with a long task
 * name passes 107 bytes, and bind fails). Inside the sandbox the temp one is shown at the same
 * path, over the private /tmp (mounts nest by depth).
 */
export function socketPlace(
  runDir: string,
  tmp: string,
): { kind: 'run'; dir: string } | { kind: 'temp'; prefix: string } {
  const dir = join(runDir, 'net');
  if (Buffer.byteLength(join(dir, SOCKET)) <= SOCKET_PATH_MAX) return { kind: 'run', dir };
  const base = Buffer.byteLength(tmp) <= 60 ? tmp : '/tmp';
  return { kind: 'temp', prefix: join(base, 'wiggum-net-') };
}

/** The forwarder beside this module's folder in wiggum's build (from the sources, as tests run them: the build's). */
function forwarderScript(): string {
  const built = fileURLToPath(new URL('../harness/egress-forwarder.js', import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL('../../dist/harness/egress-forwarder.js', import.meta.url));
}
