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

/** A host the API answers to: a name (lower case, an IPv6 address in brackets) and a port, or any port. */
export interface AllowedHost {
  name: string;
  port: number | null;
}

const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;

/** `name[:port]` as a header or a config entry writes it, or null when it is neither. */
export function parseHost(text: string): AllowedHost | null {
  const match = HOST.exec(text.trim().toLowerCase());
  if (match === null) return null;
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && port > 65_535) return null;
  return { name: match[1]!, port };
}

/** A problem with a `daemon.http.hosts` entry, or null. */
export function hostEntryProblem(text: string): string | null {
  return parseHost(text) === null
    ? `hosts: "${text.slice(0, 80)}" is not a host name or HOST:PORT (such as wiggum.example.com or 127.0.0.1:8377)`
    : null;
}

export interface HttpConfig {
  listen: ListenAddress | null;
  insecure: boolean;
  /** PEM files, relative to the vault unless absolute; null: plain HTTP. */
  tls: { cert: string; key: string } | null;
  /** More `Host:` names the API answers to (`name` or `name:port`), beside the loopback names. */
  hosts: string[];
  /** Open connections at most; more are closed as they come. */
  maxConnections: number;
  /** A request whose headers have not all come within this is answered 408 and closed. */
  headerTimeoutMs: number;
}

/** `daemon.http` as the schema checked it, compiled. */
export function compileHttp(http: {
  listen: string;
  insecure: boolean;
  tls: { cert: string; key: string };
  hosts: string[];
  max_connections: number;
  header_timeout: number;
}): HttpConfig {
  return {
    listen: http.listen === '' ? null : parseListen(http.listen),
    insecure: http.insecure,
    tls: http.tls.cert === '' ? null : { cert: http.tls.cert, key: http.tls.key },
    hosts: http.hosts,
    maxConnections: http.max_connections,
    headerTimeoutMs: http.header_timeout,
  };
}
