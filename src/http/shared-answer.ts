/**
 * One answer computed at a time and reused for a moment: a burst of requests for the vault's state
 * reads the vault once, not once per request. Callers during a computation share it; a result
 * younger than `freshMs` is served as it is.
 */
export class SharedAnswer<T> {
  private pending: Promise<T> | null = null;
  private last: { value: T; atMs: number } | null = null;

  constructor(
    private readonly compute: () => Promise<T>,
    private readonly now: () => number,
    private readonly freshMs: number,
  ) {}

  get(): Promise<T> {
    if (this.last !== null && this.now() - this.last.atMs < this.freshMs) return Promise.resolve(this.last.value);
    if (this.pending !== null) return this.pending;
    const startedAtMs = this.now();
    this.pending = this.compute().then(
      (value) => {
        this.last = { value, atMs: startedAtMs };
        this.pending = null;
        return value;
      },
      (error: unknown) => {
        this.pending = null;
        throw error;
      },
    );
    return this.pending;
  }
}
