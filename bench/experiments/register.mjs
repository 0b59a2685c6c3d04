// Experiments: the daemon run with one of its built modules swapped for a variant, to measure the
// gain of a proposed src/ change before anyone makes it. Not part of `npm run bench`.
//
//   node bench/experiments/throughput.mjs --experiments fs-watch   (the daemon gets --import register.mjs)
//
// fs-watch: dist/vault/file-events.js → ./file-events.mjs (one fs.watch on Approved/ instead of
//           chokidar), the measured alternative recorded in docs/decisions.md.
// (Variants that were adopted into src/ were removed: see docs/performance.md.)
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url, {
  data: { experiments: (process.env.BENCH_EXPERIMENTS ?? '').split(',').filter(Boolean) },
});
