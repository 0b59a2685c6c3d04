import { relative } from 'node:path';
import type { DaemonSurface } from '../daemon/daemon.js';
import { inspectVault } from '../daemon/view.js';
import { listBlocked } from '../vault/blocked-list.js';
import { createApi } from './api.js';
import { listen } from './server.js';
import { TokenGate, tokenFile } from './token.js';

/**
 * `daemon.http.listen`: the API, its metrics and the web page beside a running daemon. The token is
 * made on the first start and kept after (`wiggum http-token --rotate` replaces it).
 */
export async function startHttpApi(daemon: DaemonSurface): Promise<{ release(): Promise<void> } | null> {
  const { config, layout, clock, logger } = daemon;
  const address = config.daemon.http.listen;
  if (address === null) return null;
  const gate = await TokenGate.open(layout.state, () => clock.now());
  const app = createApi({
    layout,
    config,
    gate,
    clock,
    logger,
    // What `wiggum status --json` prints, from the same files.
    state: async () => {
      const view = await inspectVault(layout, clock.now());
      return `${JSON.stringify({ vault: layout.root, ...view, blocked: await listBlocked(layout) }, null, 2)}\n`;
    },
    metrics: null,
  });
  const server = await listen(app, { ...config.daemon.http, listen: address }, layout.root);
  logger.info(
    { event: 'api.listening', url: server.url },
    `HTTP API and web page on ${server.url}/ (the token is in ${relative(layout.root, tokenFile(layout.state))})`,
  );
  return {
    release: async () => {
      await server.close();
      logger.info({ event: 'api.stopped' }, 'HTTP API stopped');
    },
  };
}
