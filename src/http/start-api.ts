import { relative } from 'node:path';
import type { DaemonSurface } from '../daemon/surface.js';
import { inspectOwnDaemon } from '../daemon/view.js';
import { createApi } from './api.js';
import { createDaemonMetrics } from './metrics.js';
import { listen } from './server.js';
import { SharedAnswer } from './shared-answer.js';
import { TokenGate, tokenFile } from './token.js';

/** How long one reading of the vault serves every request for the state or the metrics. */
const READING_FRESH_MS = 500;

/**
 * `daemon.http.listen`: the API, its metrics and the web page beside a running daemon. The token is
 * made on the first start and kept after (`wiggum http-token --rotate` replaces it).
 */
export async function startHttpApi(daemon: DaemonSurface): Promise<{ release(): Promise<void> } | null> {
  const { config, layout, clock, logger } = daemon;
  const address = config.daemon.http.listen;
  if (address === null) return null;
  const gate = await TokenGate.open(layout.state, () => clock.now());
  // One reading of the vault answers GET /api/v1/state and a scrape of /metrics for a moment: a burst
  // of requests, or the page open beside Prometheus, reads the vault's folders once.
  const reading = new SharedAnswer(
    async () => {
      const view = await inspectOwnDaemon(layout, daemon.status());
      // What `wiggum status --json` prints, from the same files.
      const state = `${JSON.stringify({ vault: layout.root, ...view }, null, 2)}\n`;
      return { view, state };
    },
    () => clock.now(),
    READING_FRESH_MS,
  );
  const metrics = await createDaemonMetrics({
    events: daemon.events,
    layout,
    clock,
    view: async () => (await reading.get()).view,
  });
  const app = createApi({
    layout,
    config,
    gate,
    clock,
    logger,
    state: async () => (await reading.get()).state,
    daemonStatus: () => daemon.status(),
    metrics: () => metrics.render(),
  });
  const server = await listen(app, { ...config.daemon.http, listen: address }, layout.root).catch((error: unknown) => {
    metrics.release();
    throw error;
  });
  logger.info(
    { event: 'api.listening', url: server.url },
    `HTTP API and web page on ${server.url}/ (the token is in ${relative(layout.root, tokenFile(layout.state))})`,
  );
  return {
    release: async () => {
      metrics.release();
      await server.close();
      logger.info({ event: 'api.stopped' }, 'HTTP API stopped');
    },
  };
}
