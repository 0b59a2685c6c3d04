/**
 * Wraps `task` so that two runs never overlap: a call while a run is under way waits for it and
 * shares one follow-up run with every other such call, which therefore sees everything that
 * happened before it was asked for. The returned promise settles when that run has finished.
 */
export function coalesce(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;

  const start = (): Promise<void> => {
    const run = (async () => {
      try {
        await task();
      } finally {
        running = null;
      }
    })();
    running = run;
    return run;
  };

  return () => {
    // Checked first: between the end of one run and the start of the queued one, `running` is null.
    if (queued !== null) return queued;
    if (running === null) return start();
    queued = running
      .catch(() => undefined)
      .then(() => {
        queued = null;
        return start();
      });
    return queued;
  };
}
