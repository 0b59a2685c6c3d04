/**
 * `sandbox.allow`: the hosts an agent with `network: allow` may reach through wiggum's egress
 * proxy. An entry is `host` or `host:port` (`[::1]:8080` for an IPv6 address). Without a port it
 * admits the web's two, 80 and 443: naming a model API's host should not open every service it runs.
 */
export interface AllowedEndpoint {
  /** Lower case; an IPv6 address without its brackets. */
  host: string;
  /** null: 80 and 443. */
  port: number | null;
}

const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV6 = /^[0-9a-f:.]+$/;
const DEFAULT_PORTS = [80, 443];

/** One entry, or a sentence saying what is wrong with it (for the config's error). */
export function parseAllowEntry(text: string): AllowedEndpoint | string {
  const entry = text.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const [host, portText] =
    bracketed !== null ? [bracketed[1] ?? '', bracketed[2]] : (splitHostPort(entry) ?? [entry, undefined]);
  const ipv6 = bracketed !== null;
  if ((ipv6 ? !IPV6.test(host) || !host.includes(':') : !HOST.test(host)) || !/^\d*$/.test(portText ?? ''))
    return `"${text}" is not a host name or address (write host, host:port or [ipv6]:port)`;
  if (portText === undefined) return { host, port: null };
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return `"${text}" has no port between 1 and 65535`;
  return { host, port };
}

function splitHostPort(entry: string): [string, string] | null {
  const colon = entry.lastIndexOf(':');
  if (colon === -1 || entry.indexOf(':') !== colon) return null;
  return [entry.slice(0, colon), entry.slice(colon + 1)];
}

/** Whether a connection to `host`:`port` (as the agent asked for it) is admitted. */
export function admits(allowed: readonly AllowedEndpoint[], host: string, port: number): boolean {
  const wanted = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  return allowed.some(
    (endpoint) =>
      endpoint.host === wanted && (endpoint.port === null ? DEFAULT_PORTS.includes(port) : endpoint.port === port),
  );
}
