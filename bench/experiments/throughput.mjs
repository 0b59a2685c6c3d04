#!/usr/bin/env node
// The throughput phase alone, optionally with experimental module variants (see register.mjs):
//
//   node bench/experiments/throughput.mjs [--experiments fs-watch] [--tasks 1000] [--cap 120]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cleanupAll } from '../lib/cleanup.mjs';
import { throughput } from '../phases/daemon-run.mjs';

const { values } = parseArgs({
  options: {
    experiments: { type: 'string', default: '' },
    tasks: { type: 'string', default: '1000' },
    cap: { type: 'string', default: '120' },
  },
});
process.env.BENCH_EXPERIMENTS = values.experiments;
const nodeArgs = values.experiments === '' ? [] : ['--import', join(import.meta.dirname, 'register.mjs')];
try {
  const r = await throughput({
    tasks: Number(values.tasks),
    concurrency: 4,
    capMs: Number(values.cap) * 1000,
    nodeArgs,
  });
  const c = r.check;
  console.log(
    `[${values.experiments || 'baseline'}] ${c.doneAtCap}/${r.tasks} done in ${(r.elapsedMs / 1000).toFixed(1)} s: ${r.tasksPerSecond.toFixed(1)} task/s, daemon CPU ${r.cpuMsPerTask.toFixed(1)} ms/task; ` +
      `none lost ${c.noneLost}, none twice ${c.noneTwice}, all once ${c.allOnce}; peak RSS ${r.hwmMb.toFixed(0)} MB`,
  );
} finally {
  cleanupAll();
}
