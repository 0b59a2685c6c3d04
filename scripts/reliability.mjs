#!/usr/bin/env node
// `npm run test:reliability`: the reliability suite (test/reliability/) at full strength — 200
// kill -9 of the daemon instead of CI's 30, a burst of 1,000 tasks instead of 300 — then each
// campaign's figures (kills survived, tasks lost, files corrupted, orphans, …) as one table.
//
//   RELIABILITY_SEED=N npm run test:reliability    replays a kill campaign with another seed
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'wiggum-reliability-'));
const figures = join(dir, 'figures.jsonl');
const env = {
  ...process.env,
  RELIABILITY_KILLS: process.env.RELIABILITY_KILLS ?? '200',
  RELIABILITY_BURST: process.env.RELIABILITY_BURST ?? '1000',
  RELIABILITY_FIGURES: figures,
};
const vitest = join(import.meta.dirname, '..', 'node_modules', '.bin', 'vitest');
const run = spawnSync(vitest, ['run', 'test/reliability', ...process.argv.slice(2)], { stdio: 'inherit', env });

console.log('\nreliability figures');
if (existsSync(figures)) {
  for (const line of readFileSync(figures, 'utf8').split('\n').filter(Boolean)) {
    const { campaign, ...values } = JSON.parse(line);
    console.log(`  ${campaign}`);
    for (const [name, value] of Object.entries(values))
      console.log(`    ${name.padEnd(34)} ${typeof value === 'object' ? JSON.stringify(value) : value}`);
  }
} else {
  console.log('  (none recorded: the suite did not get that far)');
}
rmSync(dir, { recursive: true, force: true });
process.exit(run.status ?? 1);
