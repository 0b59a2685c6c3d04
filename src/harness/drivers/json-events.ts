/**
 * Agent CLIs that speak JSON lines (Claude Code, Codex, OpenCode, Amp, Gemini): the byte stream is
 * split into lines (bounded) and each event is read defensively: every field is checked, as the
 * format belongs to another program and changes between versions.
 */

/** The longest line kept; a longer one is dropped (and said so), so one huge event cannot exhaust memory. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** Splits a byte stream into lines without decoding a multi-byte character cut between chunks. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  constructor(private readonly maxLineBytes = MAX_LINE_BYTES) {}

  /** Calls `line` for every complete line in `chunk` (text without the newline, or null for a line over the limit). */
  push(chunk: Buffer, line: (text: string | null) => void): void {
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.append(chunk.subarray(start, newline));
      line(this.take());
      start = newline + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
  }

  /** The last line, if the stream did not end with a newline. */
  end(line: (text: string | null) => void): void {
    if (this.size > 0 || this.dropped > 0) line(this.take());
  }

  private append(piece: Buffer): void {
    if (this.dropped > 0 || this.size + piece.length > this.maxLineBytes) {
      this.dropped += this.size + piece.length;
      this.parts = [];
      this.size = 0;
      return;
    }
    if (piece.length > 0) {
      this.parts.push(piece);
      this.size += piece.length;
    }
  }

  private take(): string | null {
    const text = this.dropped > 0 ? null : Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    this.dropped = 0;
    return text;
  }
}

/** A JSON object from an agent CLI: untrusted, read only through checked accessors. */
export type JsonEvent = Record<string, unknown>;

/** The event on a line, or null for a line that is not a JSON object (plain text, a warning). */
export function parseEvent(line: string): JsonEvent | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}
