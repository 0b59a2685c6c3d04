/**
 * A copy of `text` that shares no memory with the string it was cut from. V8 keeps a substring of
 * 13 characters or more as a view on its parent, so a short field kept from a parsed file (an id, a
 * session) would otherwise keep the whole file's text alive as long as the field lives.
 */
export function ownCopy(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf8').toString('utf8');
}
