import { createHmac } from 'node:crypto';

/** The header a webhook delivery is signed in, and its value: `sha256=<hex HMAC-SHA256(secret, raw body)>`. */
export const SIGNATURE_HEADER = 'X-Wiggum-Signature';

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * The key of a Standard Webhooks signature: the bytes that the base64 after `whsec_` stands for when
 * the secret has that form (as the spec's own libraries take it), else the secret's UTF-8 bytes.
 */
export function standardKey(secret: string): Buffer {
  const rest = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : null;
  if (rest !== null && rest !== '' && /^[A-Za-z0-9+/]+={0,2}$/.test(rest) && rest.length % 4 === 0)
    return Buffer.from(rest, 'base64');
  return Buffer.from(secret, 'utf8');
}

/**
 * The Standard Webhooks headers of one delivery attempt (standardwebhooks.com): `webhook-id` is the
 * same on every attempt of one event, `webhook-timestamp` is the attempt's own (Unix seconds), and
 * `webhook-signature` is `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`, so a receiver that
 * refuses an old timestamp or an id it has seen cannot be fed a recorded request again.
 */
export function standardHeaders(secret: string, id: string, nowMs: number, body: string): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const signature = createHmac('sha256', standardKey(secret))
    .update(`${id}.${timestamp}.${body}`, 'utf8')
    .digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
