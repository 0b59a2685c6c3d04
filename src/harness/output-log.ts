import { constants, createWriteStream, openSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { WiggumError, systemErrorCode } from '../errors.js';

/**
 * A harness's full output, appended to one file through one stream and cut at `maxBytes`: past the
 * cap one line says so and the rest is dropped, so a flooding agent cannot fill the disk.
 *
 * `write` returns false when the stream's buffer is full; the caller pauses its sources until
 * `drained()` resolves, so memory stays bounded however fast the harness prints.
 */
export class CappedLog {
  private written = 0;
  private lastByte = 0x0a;
  private cut = false;
  private failure: WiggumError | null = null;
  private readonly closed: Promise<void>;

  private constructor(
    private readonly path: string,
    private readonly maxBytes: number,
    private readonly stream: WriteStream,
  ) {
    this.closed = new Promise((resolve) => stream.once('close', () => resolve()));
    stream.on('error', (cause) => {
      // A full disk must not stop the run: the harness goes on, the log stops, the result says why.
      this.failure ??= new WiggumError(
        'E_WRITE',
        `could not write the harness log ${path}: ${cause.message}; check free disk space and permissions`,
        {
          cause,
          details: { path },
        },
      );
    });
  }

  /**
   * Opens `path` for appending. A symlink there is refused (O_NOFOLLOW): the log lives in the
   * session folder, and a planted link must not redirect harness output onto another file. The
   * open is synchronous, as small file reads are (docs/decisions.md): a thread-pool round trip
   * before every spawn cost more than the open; the writes still go through the stream.
   */
  static open(path: string, maxBytes: number): CappedLog {
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);
    try {
      const fd = openSync(path, flags, 0o644);
      return new CappedLog(path, maxBytes, createWriteStream('', { fd }));
    } catch (cause) {
      if (systemErrorCode(cause) === 'ELOOP') {
        throw new WiggumError(
          'E_SYMLINK_REFUSED',
          `${path} is a symbolic link; wiggum does not write harness logs through links, remove it`,
          { cause, details: { path } },
        );
      }
      throw new WiggumError(
        'E_WRITE',
        `could not open the harness log ${path}: ${(cause as Error).message}; check that its folder exists and is writable`,
        {
          cause,
          details: { path },
        },
      );
    }
  }

  /** Whether the cap was reached and output dropped. */
  get truncated(): boolean {
    return this.cut;
  }

  /** Why writing stopped early, if it did. */
  get error(): WiggumError | null {
    return this.failure;
  }

  /** Appends what fits under the cap. Returns false when the caller should wait for `drained()`. */
  write(chunk: Buffer): boolean {
    if (this.cut || this.failure !== null || this.stream.destroyed) return true;
    const room = this.maxBytes - this.written;
    if (chunk.length <= room) return this.append(chunk);
    if (room > 0) this.append(chunk.subarray(0, room));
    this.cut = true;
    const newline = this.lastByte === 0x0a ? '' : '\n';
    return this.append(Buffer.from(`${newline}[wiggum: output truncated after ${this.maxBytes} bytes]\n`));
  }

  /** Resolves when buffered writes have gone to the file, or writing has stopped for good. */
  drained(): Promise<void> {
    if (!this.stream.writableNeedDrain || this.stream.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.stream.off('drain', done);
        this.stream.off('close', done);
        resolve();
      };
      this.stream.on('drain', done);
      this.stream.on('close', done);
    });
  }

  /** Flushes and closes the file. Never rejects: a write failure is in `error`. */
  async close(): Promise<void> {
    if (!this.stream.destroyed) this.stream.end();
    await this.closed;
  }

  private append(bytes: Buffer): boolean {
    if (bytes.length === 0) return true;
    this.written += bytes.length;
    this.lastByte = bytes[bytes.length - 1] ?? this.lastByte;
    return this.stream.write(bytes);
  }
}
