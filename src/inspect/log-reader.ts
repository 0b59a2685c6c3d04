import { readFrom } from '../store/file-tail.js';
import type { OutputReader } from '../harness/drivers/driver.js';

/**
 * One harness log read as it grows: each new piece is turned into what `run` shows live by the
 * driver's reader (or passed through as it is, for --raw).
 */
export class GrowingLog {
  private offset = 0;

  constructor(
    readonly path: string,
    private readonly reader: OutputReader | null,
  ) {}

  /** What was appended since the last call, rendered (or raw). */
  async next(): Promise<string> {
    const bytes = await readFrom(this.path, this.offset);
    if (bytes.length === 0) return '';
    this.offset += bytes.length;
    if (this.reader === null) return bytes.toString('utf8');
    this.reader.push(bytes, 'stdout');
    return this.reader.display(bytes, 'stdout');
  }
}
