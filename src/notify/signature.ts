import { createHmac } from 'node:crypto';

/** The header a webhook delivery is signed in, and its value: `sha256=<hex HMAC-SHA256(secret, raw body)>`. */
export const SIGNATURE_HEADER = 'X-Wiggum-Signature';

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}
