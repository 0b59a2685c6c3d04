/** What every masked value is replaced by. */
export const REDACTED = '[redacted]';

/**
 * Values shorter than this are not masked: a 6-character "secret" is too likely to be a common
 * word, a number or part of a path, and masking it would cut holes in ordinary text.
 */
export const MIN_SECRET_LENGTH = 8;

/** Names of variables whose values are credentials: key, token, secret, password, credential. */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL/i;

/**
 * A set of secret values, built once per daemon or run from the config and the environment
 * (config/secret-values.ts), and applied to everything wiggum derives from agent output or writes
 * for people: each occurrence becomes `[redacted]`. Pure: no I/O, immutable once built.
 *
 * Masking comes before any cut (a tail, a length cap), so that a truncated field never shows half
 * of a value: callers mask the whole text they have, then cut.
 */
export class SecretMask {
  /** The values, longest first, so that a value containing another is hidden whole. */
  readonly values: readonly string[];
  private readonly pattern: RegExp | null;
  /** The same values as byte strings (latin1: one character a byte), for masking raw output. */
  private readonly bytePattern: RegExp | null;
  private readonly byteValues: readonly string[];

  constructor(values: Iterable<string>) {
    const kept = new Set<string>();
    for (const value of values) if (typeof value === 'string' && value.length >= MIN_SECRET_LENGTH) kept.add(value);
    this.values = [...kept].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    this.byteValues = this.values.map((value) => Buffer.from(value, 'utf8').toString('latin1'));
    this.pattern = alternation(this.values);
    this.bytePattern = alternation(this.byteValues);
  }

  /** A mask that hides nothing. */
  static readonly none = new SecretMask([]);

  /** This set with more values. */
  with(values: Iterable<string>): SecretMask {
    return new SecretMask([...this.values, ...values]);
  }

  get empty(): boolean {
    return this.values.length === 0;
  }

  /** `text` with every value replaced by `[redacted]`. */
  text(text: string): string {
    if (this.pattern === null || text.length < MIN_SECRET_LENGTH) return text;
    this.pattern.lastIndex = 0;
    return text.replace(this.pattern, REDACTED);
  }

  /** Whether `text` holds a value. */
  holds(text: string): boolean {
    return this.pattern !== null && this.text(text) !== text;
  }

  /**
   * Every string inside a JSON-like value masked (object keys too), as a new value: a document for
   * a notifier, a status file, a history line. Non-plain objects (Dates, Buffers) are kept as they are.
   */
  json<T>(value: T): T {
    if (this.pattern === null) return value;
    return this.deep(value) as T;
  }

  /** A masker for one output stream whose values may be cut across chunks (`MaskedStream`). */
  stream(): MaskedStream {
    return new MaskedStream(this.bytePattern, this.byteValues);
  }

  private deep(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.deep(item));
    if (value === null || typeof value !== 'object') return value;
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.deep(item)]));
  }
}

/**
 * Masks one byte stream chunk by chunk. A value cut across two chunks is caught by holding back the
 * end of a chunk while it could still be the start of a value: at most the longest value's length
 * less one byte, and only as long as those bytes are a value's beginning. Output ending in a
 * newline (a secret never starts with one) is never held, so a line-by-line agent shows every line
 * at once; a held end is let go by the next chunk or by `end()`, never by a timer, which would
 * show half a value to a reader following live.
 */
export class MaskedStream {
  private held = '';

  constructor(
    private readonly pattern: RegExp | null,
    private readonly values: readonly string[],
  ) {}

  /** What of `chunk` (and of the bytes held before it) can be shown now, masked. */
  push(chunk: Buffer): Buffer {
    if (this.pattern === null) return chunk;
    const text = this.held + chunk.toString('latin1');
    let out = '';
    let from = 0;
    this.pattern.lastIndex = 0;
    for (let match = this.pattern.exec(text); match !== null; match = this.pattern.exec(text)) {
      out += text.slice(from, match.index) + REDACTED;
      from = match.index + match[0].length;
    }
    const rest = text.slice(from);
    const keep = startOfValueAtEnd(rest, this.values);
    this.held = rest.slice(rest.length - keep);
    return Buffer.from(out + rest.slice(0, rest.length - keep), 'latin1');
  }

  /** The bytes still held back (no value can complete any more). */
  end(): Buffer {
    const rest = Buffer.from(this.held, 'latin1');
    this.held = '';
    return rest;
  }
}

/** The length of the longest end of `text` that is the beginning of a value (and not a whole one). */
function startOfValueAtEnd(text: string, values: readonly string[]): number {
  const longest = Math.min(text.length, (values[0]?.length ?? 1) - 1);
  for (let length = longest; length > 0; length -= 1) {
    const end = text.slice(text.length - length);
    if (values.some((value) => value.length > length && value.startsWith(end))) return length;
  }
  return 0;
}

function alternation(values: readonly string[]): RegExp | null {
  if (values.length === 0) return null;
  return new RegExp(values.map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
}
