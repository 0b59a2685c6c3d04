import { WiggumError } from '../errors.js';

/**
 * Where the queue's Redis is, read from `redis://[USER[:PASSWORD]@]HOST:PORT[/DB]`, or `rediss://…`
 * for TLS (`--queue`, `queue:` in config). Kept apart from the connection so that reading an
 * address loads no Redis client.
 */
export interface QueueAddress {
  readonly host: string;
  readonly port: number;
  /** The Redis database number; 0 when the URL has no path. */
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  /** `rediss://`: over TLS, the server's certificate checked against the system's CAs (and NODE_EXTRA_CA_CERTS). */
  readonly tls: boolean;
  /** The address as it may be printed or logged: a password is replaced by `***`. */
  readonly shown: string;
}

const REDACTED = '***';

/**
 * Reads and checks a queue URL. Pure. The port must be written out (no silent 6379: a worker
 * pointed at the wrong Redis would wait forever for jobs that are elsewhere); anything the
 * connection would ignore (a query, a fragment, a path that is not a database number) is refused
 * rather than dropped. Throws `E_QUEUE_URL`, whose message never contains the password.
 */
export function parseQueueUrl(text: string): QueueAddress {
  const shownInput = redactUserInfo(text.trim());
  const refuse = (why: string): never => {
    throw new WiggumError(
      'E_QUEUE_URL',
      `queue address ${shownInput} ${why}; write it as redis://HOST:PORT or redis://HOST:PORT/DB (e.g. redis://127.0.0.1:6379), rediss://… for TLS`,
      { details: { url: shownInput } },
    );
  };
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return refuse('is not a URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    return refuse(`has the scheme ${url.protocol.replace(/:$/, '')}, not redis or rediss`);
  const tls = url.protocol === 'rediss:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return refuse('names no host');
  if (url.port === '') return refuse('names no port');
  const port = Number(url.port);
  if (port < 1 || port > 65_535) return refuse(`has port ${url.port}, outside 1-65535`);
  if (url.search !== '' || url.hash !== '') return refuse('has a query or fragment, which the queue would ignore');
  const path = url.pathname;
  if (path !== '' && path !== '/' && !/^\/\d{1,5}$/.test(path)) {
    return refuse(`has the path ${path}, which is not a database number`);
  }
  const db = path.length > 1 ? Number(path.slice(1)) : 0;
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const userInfo = username === '' && password === '' ? '' : `${url.username}${password === '' ? '' : `:${REDACTED}`}@`;
  const hostShown = host.includes(':') ? `[${host}]` : host;
  return {
    host,
    port,
    db,
    ...(username === '' ? {} : { username }),
    ...(password === '' ? {} : { password }),
    tls,
    shown: `${tls ? 'rediss' : 'redis'}://${userInfo}${hostShown}:${port}${db === 0 ? '' : `/${db}`}`,
  };
}

/**
 * `scheme://user:secret@rest` → `scheme://user:***@rest`, for text that may not even parse as a URL.
 * Up to the last `@`: a password with an unescaped `/` or `@` in it is still hidden whole.
 */
function redactUserInfo(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):.*@/i, `$1:${REDACTED}@`);
}
