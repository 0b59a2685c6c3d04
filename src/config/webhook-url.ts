/**
 * A webhook URL as a notifier may use it, and as wiggum may show it. A URL often carries a token in
 * its path or query (Slack, Discord, many hook services), so everything wiggum prints names only
 * `scheme://host:port/…`; the check's own messages never repeat the URL as written.
 */

export type WebhookUrlCheck = { ok: true; url: URL } | { ok: false; message: string };

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);

/** Whether `hostname` (as `URL` gives it: IPv6 in brackets) is this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return LOOPBACK_NAMES.has(host) || /^127(\.\d{1,3}){3}$/.test(host) || host.endsWith('.localhost');
}

/**
 * https, or http to this machine only: a signed document sent in clear over a network can be read
 * on the way, and the receiver then learns of tasks from anyone who saw one.
 */
export function checkWebhookUrl(text: string): WebhookUrlCheck {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return {
      ok: false,
      message: 'not a URL: write the full address, such as https://hooks.example.com/wiggum',
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, message: `the URL's scheme is ${url.protocol.replace(/:$/, '')}: use https://` };
  if (url.hostname === '') return { ok: false, message: 'the URL names no host: use https://HOST/…' };
  if (url.username !== '' || url.password !== '')
    return {
      ok: false,
      message: `the URL carries a user name or password (${redactUrl(url)}): put the credential in secret_env, not in the URL`,
    };
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return {
      ok: false,
      message: `http:// is allowed only to this machine (127.0.0.1, ::1, localhost): use https:// for ${redactUrl(url)}`,
    };
  return { ok: true, url };
}

/** `scheme://host:port/…`: what logs, status and the Dashboard show of a webhook URL. */
export function redactUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return '(not a URL)';
  }
  const port =
    parsed.port === '' ? (parsed.protocol === 'https:' ? '443' : parsed.protocol === 'http:' ? '80' : '') : parsed.port;
  return `${parsed.protocol}//${parsed.hostname}${port === '' ? '' : `:${port}`}/…`;
}
