/**
 * A typed event map: `emit('queued', {...})` is checked against the map's payload type, and
 * `next('settled', match)` resolves with the next matching event, so tests (and callers) wait on
 * what happened instead of sleeping. `on` returns its own release, like everything that starts
 * something here.
 */
export class TypedEvents<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  /**
   * @param onListenerError a listener that throws is reported here and the others still run: an
   *   observer must never break the daemon it observes.
   */
  constructor(private readonly onListenerError: (error: unknown, event: keyof Events) => void = () => undefined) {}

  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(event);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener);
    return () => void set.delete(listener);
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        (listener as (payload: Events[K]) => void)(payload);
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }

  /** The next `event` whose payload `match`es (every one, by default); rejects if `signal` aborts first. */
  next<K extends keyof Events>(
    event: K,
    match: (payload: Events[K]) => boolean = () => true,
    signal?: AbortSignal,
  ): Promise<Events[K]> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        release();
        reject(signal?.reason instanceof Error ? signal.reason : new Error(`stopped waiting for ${String(event)}`));
      };
      const release = this.on(event, (payload) => {
        if (!match(payload)) return;
        release();
        signal?.removeEventListener('abort', onAbort);
        resolve(payload);
      });
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
