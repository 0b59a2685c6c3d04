/**
 * Which `Host:` headers the API answers: a page on another site that makes its own name resolve to
 * 127.0.0.1 (DNS rebinding) sends its own name, and is answered 421 before any route runs. Pure.
 */
import { parseHost } from '../config/http-listen.js';
import type { AllowedHost } from '../config/http-listen.js';

const WILDCARDS = new Set(['0.0.0.0', '[::]']);

/**
 * What the API answers to once it listens on `listenHost:port`: 127.0.0.1, localhost and [::1] with
 * that port, the address it listens on (unless it is every address), and `daemon.http.hosts`
 * (`name` for any port, `name:port` for one).
 */
export function allowedHosts(listenHost: string, port: number, extra: readonly string[]): AllowedHost[] {
  const own = listenHost.includes(':') ? `[${listenHost.toLowerCase()}]` : listenHost.toLowerCase();
  const names = ['127.0.0.1', 'localhost', '[::1]', ...(WILDCARDS.has(own) ? [] : [own])];
  const allowed: AllowedHost[] = [...new Set(names)].map((name) => ({ name, port }));
  for (const entry of extra) {
    const host = parseHost(entry);
    if (host !== null) allowed.push(host);
  }
  return allowed;
}

/** Whether a request with this `Host:` header is answered; a header without a port means `defaultPort`. */
export function hostAllowed(header: string | undefined, allowed: readonly AllowedHost[], defaultPort: number): boolean {
  if (header === undefined) return false;
  const host = parseHost(header);
  if (host === null) return false;
  const port = host.port ?? defaultPort;
  return allowed.some((a) => a.name === host.name && (a.port === null || a.port === port));
}

/** How the refusal reads: what to ask for instead, and where to add a name. */
export function misdirectedText(allowed: readonly AllowedHost[]): string {
  const shown = allowed.map((a) => (a.port === null ? a.name : `${a.name}:${a.port}`)).join(', ');
  return `421 Misdirected Request: this wiggum answers only to Host ${shown}; add a name to daemon.http.hosts to serve it under that name\n`;
}

/**
 * How often Node looks for connections past their header or request timeout: it checks only then
 * (30 s by default), so a 10 s header timeout held half-sent headers for up to 40 s. A tenth of the
 * header timeout, between 50 ms and 1 s.
 */
export function connectionsCheckingIntervalMs(headerTimeoutMs: number): number {
  return Math.min(1000, Math.max(50, Math.floor(headerTimeoutMs / 10)));
}
