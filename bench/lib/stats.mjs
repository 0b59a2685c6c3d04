// Distributions: nearest-rank percentiles over the samples kept after the warm-up.

/** p50/p95/p99/max/n (and mean, min) of `samples`, in their own unit. */
export function summarize(samples) {
  const sorted = [...samples].filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { n: 0, min: NaN, p50: NaN, p95: NaN, p99: NaN, max: NaN, mean: NaN };
  const rank = (p) => sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))];
  const mean = sorted.reduce((sum, value) => sum + value, 0) / n;
  return { n, min: sorted[0], p50: rank(50), p95: rank(95), p99: rank(99), max: sorted[n - 1], mean };
}

/**
 * Times `fn` (sync or async) `warmup + n` times; returns the last n durations in ms. With `maxMs`,
 * sampling stops early once that much time has passed and at least `minN` samples are kept (a
 * loaded machine must not push the bench past its time limit).
 */
export async function timeSamples(n, warmup, fn, { maxMs = Infinity, minN = n } = {}) {
  const samples = [];
  const began = performance.now();
  for (let i = 0; i < warmup + n; i += 1) {
    if (samples.length >= minN && performance.now() - began > maxMs) break;
    const start = performance.now();
    await fn(i);
    const elapsed = performance.now() - start;
    if (i >= warmup) samples.push(elapsed);
  }
  return samples;
}

/** Wall-clock ms since the epoch with sub-ms resolution (CLOCK_REALTIME, like bash's $EPOCHREALTIME). */
export function wallMs() {
  return performance.timeOrigin + performance.now();
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A time box: `more(kept)` is false once `maxMs` has passed and `minN` samples are kept. */
export function timeBox(maxMs, minN) {
  const began = performance.now();
  return { more: (kept) => kept < minN || performance.now() - began <= maxMs };
}
