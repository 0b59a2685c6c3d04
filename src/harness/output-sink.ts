import type { Readable } from 'node:stream';
import type { MaskedStream, SecretMask } from '../secret-mask.js';
import type { CappedLog } from './output-log.js';
import { OutputTail } from './output-tail.js';

type StreamName = 'stdout' | 'stderr';

/**
 * Where a run's output goes, chunk by chunk: masked first (each stream on its own, so that a value
 * cut across two chunks is still caught: secret-mask.ts), then into the tail kept for the result,
 * the log file and `onOutput`. A full log pauses both streams until it drains, so a flood cannot
 * pile up in memory.
 */
export class OutputSink {
  readonly tails: Record<StreamName, OutputTail>;
  private readonly masks: Record<StreamName, MaskedStream | null>;
  private waitingForLog = false;

  constructor(
    private readonly streams: readonly Readable[],
    private readonly log: CappedLog | null,
    tailBytes: number,
    mask: SecretMask | undefined,
    private readonly onOutput: ((chunk: Buffer, stream: StreamName) => void) | undefined,
  ) {
    this.tails = { stdout: new OutputTail(tailBytes), stderr: new OutputTail(tailBytes) };
    const masked = mask !== undefined && !mask.empty;
    this.masks = { stdout: masked ? mask.stream() : null, stderr: masked ? mask.stream() : null };
  }

  /** A chunk as read from the pipe. */
  push(name: StreamName, chunk: Buffer): void {
    const mask = this.masks[name];
    this.take(name, mask === null ? chunk : mask.push(chunk));
  }

  /** The stream ended: what its mask held back (the start of a value that never came whole) goes out. */
  end(name: StreamName): void {
    const rest = this.masks[name]?.end();
    if (rest !== undefined) this.take(name, rest);
  }

  private take(name: StreamName, chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.tails[name].push(chunk);
    if (this.log !== null && !this.log.write(chunk) && !this.waitingForLog) {
      this.waitingForLog = true;
      for (const stream of this.streams) stream.pause();
      void this.log.drained().then(() => {
        this.waitingForLog = false;
        for (const stream of this.streams) stream.resume();
      });
    }
    this.onOutput?.(chunk, name);
  }
}
