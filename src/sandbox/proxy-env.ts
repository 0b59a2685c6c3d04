import type { AllowedEndpoint } from '../config/allow-list.js';

/** Every variable an HTTP client reads its proxy from, in both spellings: wiggum sets them all. */
export const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'];
/** Cleared: a `NO_PROXY` of the user's (127.0.0.1 is a common one) would send the agent around the proxy, into an empty network. */
export const NO_PROXY_VARIABLES = ['NO_PROXY', 'no_proxy'];

/** The port the forwarder listens on inside the sandbox; the next free one when `allow` names it. */
export function forwarderPort(allow: readonly AllowedEndpoint[]): number {
  let port = 3128;
  while (allow.some((endpoint) => endpoint.port === port && /^(127\.|localhost$|::1$)/.test(endpoint.host))) port += 1;
  return port;
}

/**
 * The environment of an agent behind the egress proxy, over the harness's own: Claude Code honours
 * HTTPS_PROXY even for an http:// base URL, Codex HTTP_PROXY or ALL_PROXY (docs/sandbox.md), so
 * every one points at the forwarder and none of the user's survives.
 */
export function proxyEnvironment(port: number): Record<string, string> {
  const address = `http://127.0.0.1:${port}`;
  return {
    ...Object.fromEntries(PROXY_VARIABLES.map((name) => [name, address])),
    ...Object.fromEntries(NO_PROXY_VARIABLES.map((name) => [name, ''])),
  };
}
