/**
 * The last `capacity` bytes of a stream, kept in a ring buffer. A harness may print hundreds
 * of megabytes; reports and completion checks only need the end, so memory stays at `capacity`
 * however much arrives. The ring grows with what arrives, up to `capacity`: most runs print a few
 * lines, and three rings of the full capacity allocated per run were the quick loop's largest
 * garbage, held outside the JS heap where every spawn's fork copies it (docs/decisions.md).
 */
export class OutputTail {
  private readonly capacity: number;
  private ring: Buffer = Buffer.alloc(0);
  /** Index of the oldest byte kept. */
  private start = 0;
  private length = 0;

  constructor(capacity: number) {
    this.capacity = Math.max(0, Math.floor(capacity));
  }

  /** Bytes currently kept (at most the capacity). */
  get size(): number {
    return this.length;
  }

  push(chunk: Buffer): void {
    if (this.capacity === 0 || chunk.length === 0) return;
    if (this.length + chunk.length > this.ring.length && this.ring.length < this.capacity) this.grow(chunk.length);
    const capacity = this.ring.length;
    if (chunk.length >= capacity) {
      chunk.copy(this.ring, 0, chunk.length - capacity);
      this.start = 0;
      this.length = capacity;
      return;
    }
    const writeAt = (this.start + this.length) % capacity;
    const first = Math.min(chunk.length, capacity - writeAt);
    chunk.copy(this.ring, writeAt, 0, first);
    chunk.copy(this.ring, 0, first); // the part that wraps around, if any
    const total = this.length + chunk.length;
    if (total > capacity) {
      // The new bytes overwrote the oldest ones: the window slides forward by the overflow.
      this.start = (this.start + total - capacity) % capacity;
      this.length = capacity;
    } else {
      this.length = total;
    }
  }

  /** A larger ring, the kept bytes moved to its start: room for `incoming` more, or the full capacity. */
  private grow(incoming: number): void {
    const wanted = Math.max(this.ring.length * 2, this.length + incoming, 256);
    const ring = Buffer.allocUnsafe(Math.min(this.capacity, wanted));
    this.bytesInto(ring);
    this.ring = ring;
    this.start = 0;
  }

  /** Copies the kept bytes, oldest first, to the start of `target`. */
  private bytesInto(target: Buffer): void {
    const end = this.start + this.length;
    const first = this.ring.subarray(this.start, Math.min(end, this.ring.length));
    first.copy(target, 0);
    if (end > this.ring.length) this.ring.copy(target, first.length, 0, end - this.ring.length);
  }

  /** The kept bytes, oldest first (a copy). */
  bytes(): Buffer {
    const copy = Buffer.allocUnsafe(this.length);
    this.bytesInto(copy);
    return copy;
  }

  /**
   * The kept bytes as UTF-8. The window's edges can fall inside a multi-byte character; those
   * partial characters are dropped rather than shown as replacement characters.
   */
  text(): string {
    const bytes = this.bytes();
    return bytes
      .subarray(leadingContinuationBytes(bytes), bytes.length - incompleteTrailingBytes(bytes))
      .toString('utf8');
  }
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Continuation bytes at the start: the rest of a character whose first bytes fell off the window. */
function leadingContinuationBytes(bytes: Buffer): number {
  let count = 0;
  while (count < 3 && count < bytes.length && isContinuation(bytes[count] ?? 0)) count += 1;
  return count;
}

/** Bytes at the end that start a character the stream has not finished yet. */
function incompleteTrailingBytes(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back] ?? 0;
    if (isContinuation(byte)) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? back : 0;
  }
  return 0;
}
