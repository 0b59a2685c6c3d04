/** How much the API takes on at once: a burst of requests never becomes unbounded work. */
export interface RequestLimits {
  /** Requests being answered at once (event streams aside); more are answered 503 at once. */
  inFlight: number;
  /** Open event streams at once; more are answered 503. */
  streams: number;
  /** The largest request body read; a larger one is answered 413 and not read. */
  bodyBytes: number;
}

export const DEFAULT_LIMITS: RequestLimits = { inFlight: 16, streams: 16, bodyBytes: 64 * 1024 };

/** A count of what runs now against its bound: `enter` false means answer 503. */
export class Slots {
  private used = 0;

  constructor(private readonly size: number) {}

  enter(): boolean {
    if (this.used >= this.size) return false;
    this.used += 1;
    return true;
  }

  leave(): void {
    this.used = Math.max(0, this.used - 1);
  }

  get inUse(): number {
    return this.used;
  }
}
