#!/usr/bin/env node
// The pickup phase alone, optionally with experimental module variants (see register.mjs):
//
//   node bench/experiments/pickup.mjs [--experiments fs-watch] [--n 40]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cleanupAll } from '../lib/cleanup.mjs';
import { pickup } from '../phases/daemon-run.mjs';

const { values } = parseArgs({
  options: { experiments: { type: 'string', default: '' }, n: { type: 'string', default: '40' } },
});
process.env.BENCH_EXPERIMENTS = values.experiments;
const nodeArgs = values.experiments === '' ? [] : ['--import', join(import.meta.dirname, 'register.mjs')];
const f = (s) => `p50 ${s.p50.toFixed(1)}  p95 ${s.p95.toFixed(1)}  max ${s.max.toFixed(1)} ms`;
try {
  const r = await pickup({ n: Number(values.n), warmup: 3, nodeArgs });
  console.log(
    `[${values.experiments || 'baseline'}] dropped → harness started: ${f(r.figure)}; dropped → queued: ${f(r.dropToQueued)}; queued → harness: ${f(r.queuedToHarness)}`,
  );
} finally {
  cleanupAll();
}
