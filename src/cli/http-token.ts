import { relative } from 'node:path';
import { WiggumError } from '../errors.js';
import { readToken, tokenFile, writeToken } from '../http/token.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';

/**
 * `wiggum http-token [--rotate]`: the HTTP API's bearer token on stdout (for curl, a Prometheus
 * scrape config, the page's URL); --rotate replaces it, and a running daemon takes the new one
 * within a second, refusing the old one from then on.
 */
export async function httpTokenCommand(options: VaultOptions & { rotate?: boolean }): Promise<ExitCode> {
  const { config, layout } = await openVault(options);
  const shown = relative(layout.root, tokenFile(layout.state));
  const token = options.rotate === true ? await writeToken(layout.state) : await readToken(layout.state);
  if (token === null)
    throw new WiggumError(
      'E_USAGE',
      `no token in ${shown} yet: wiggum start writes one when daemon.http.listen is set (or wiggum http-token --rotate makes one now)`,
    );
  process.stdout.write(`${token}\n`);
  const address = config.daemon.http.listen;
  const scheme = config.daemon.http.tls === null ? 'http' : 'https';
  process.stderr.write(
    (options.rotate === true
      ? `a new token is in ${shown}: a running daemon takes it within a second, and the old one no longer works\n`
      : '') +
      (address === null
        ? 'the HTTP API is off: set daemon.http.listen (127.0.0.1:8377) in .wiggum/config.yaml and restart the daemon\n'
        : `the web page: ${scheme}://${address.shown}/?token=<the token>\n`),
  );
  return EXIT.complete;
}
