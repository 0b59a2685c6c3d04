/**
 * One status line kept at the bottom of a terminal, under the log: log lines are written above it
 * (the line is cleared, the log line written, the status drawn again), so the two never mix.
 * Nothing is drawn when the status is empty.
 */
export class LiveLine {
  private text = '';

  constructor(
    private readonly out: { write(text: string): unknown },
    private readonly columns: () => number | undefined = () => 100,
  ) {}

  /** Replaces the status line. */
  set(text: string): void {
    // A terminal that does not say its width (0, or none under some pseudo-terminals) counts as 100, as for the log lines above it.
    const width = Math.max(20, (this.columns() || 100) - 1);
    const next = text.length > width ? `${text.slice(0, width - 1)}…` : text;
    if (next === this.text) return;
    this.out.write(`\r\u001b[K${next}`);
    this.text = next;
  }

  /** Writes `line` (ending in a newline) above the status line. */
  writeAbove(line: string): void {
    this.out.write(this.text === '' ? line : `\r\u001b[K${line}${this.text}`);
  }

  /** Leaves the terminal clean (at exit). */
  clear(): void {
    if (this.text !== '') this.out.write('\r\u001b[K');
    this.text = '';
  }
}
