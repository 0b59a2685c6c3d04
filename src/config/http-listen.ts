/**
 * `daemon.http.listen`: where the HTTP API listens, and whether that exposes it. Pure: the schema
 * checks an address with these before the daemon starts, and the server listens on what they parse.
 */

export interface ListenAddress {
  /** The host to bind, without brackets (`127.0.0.1`, `::1`, `localhost`, `0.0.0.0`). */
  host: string;
  port: number;
  /** How to write it back in a URL (`[::1]:8377`). */
  shown: string;
}

const HOST_PORT = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/;

/** `127.0.0.1:8377`, `[::1]:8377`, `localhost:8377`, `0.0.0.0:8377`; port 0 picks a free one. */
export function parseListen(text: string): ListenAddress | null {
  const match = HOST_PORT.exec(text.trim());
  if (match === null) return null;
  const host = match[1] ?? match[2]!;
  const port = Number(match[3]);
  if (port > 65_535) return null;
  return { host, port, shown: match[1] === undefined ? `${host}:${port}` : `[${host}]:${port}` };
}

/** What is wrong with a listen address, or null. */
export function listenProblem(text: string): string | null {
  return parseListen(text) === null
    ? `listen must be HOST:PORT, such as 127.0.0.1:8377 or [::1]:8377 (got "${text.slice(0, 80)}")`
    : null;
}

/** Loopback: reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === 'localhost' || lower === '::1' || /^127(\.\d{1,3}){3}$/.test(lower);
}

/**
 * Why the API may not listen there, or null. Off the loopback the bearer token crosses the network:
 * only over TLS, or when the config says in words that this is meant (a trusted network, a proxy).
 */
export function exposureProblem(listen: string, how: { tls: boolean; insecure: boolean }): string | null {
  const address = parseListen(listen);
  if (address === null || isLoopbackHost(address.host) || how.tls || how.insecure) return null;
  return (
    `listen ${address.shown} is reachable from other machines, and without TLS the API's token would cross ` +
    'the network in clear: set daemon.http.tls.cert and daemon.http.tls.key (PEM files), or daemon.http.insecure: true ' +
    'if the network is trusted (a reverse proxy, a VPN), or listen on 127.0.0.1'
  );
}
