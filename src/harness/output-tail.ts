/**
 * The last `capacity` bytes of a stream, kept in a fixed ring buffer. A harness may print hundreds
 * of megabytes; reports and completion checks only need the end, so memory stays at `capacity`
 * however much arrives.
 */
export class OutputTail {
  private readonly ring: Buffer;
  /** Index of the oldest byte kept. */
  private start = 0;
  private length = 0;

  constructor(capacity: number) {
    this.ring = Buffer.alloc(Math.max(0, Math.floor(capacity)));
  }

  /** Bytes currently kept (at most the capacity). */
  get size(): number {
    return this.length;
  }

  push(chunk: Buffer): void {
    const capacity = this.ring.length;
    if (capacity === 0 || chunk.length === 0) return;
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

  /** The kept bytes, oldest first (a copy). */
  bytes(): Buffer {
    const end = this.start + this.length;
    if (end <= this.ring.length) return Buffer.from(this.ring.subarray(this.start, end));
    return Buffer.concat([this.ring.subarray(this.start), this.ring.subarray(0, end - this.ring.length)]);
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
