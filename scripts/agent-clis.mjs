#!/usr/bin/env node
// Installs the real agent CLIs the end-to-end tests run (test/agent-clis/: claude, codex, gemini,
// opencode) with `npm ci` when their node_modules is missing or older than their lockfile. They are
// a test-only package so that the root `npm ci && npm start` stays light (docs/decisions.md).
// `npm test` runs this before vitest; `npm run test:agent-clis` runs it before `npx vitest run test/harness`.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, '..', 'test', 'agent-clis');
const stamp = join(dir, 'node_modules', '.installed-lock.sha256');
const BINS = ['claude', 'codex', 'gemini', 'opencode'];

const lockHash = createHash('sha256')
  .update(readFileSync(join(dir, 'package-lock.json')))
  .update(readFileSync(join(dir, 'package.json')))
  .digest('hex');
const installed =
  existsSync(stamp) &&
  readFileSync(stamp, 'utf8').trim() === lockHash &&
  BINS.every((bin) => existsSync(join(dir, 'node_modules', '.bin', bin)));

if (installed) {
  console.log('agent-clis: test/agent-clis is installed and matches its lockfile');
} else {
  console.log('agent-clis: installing the agent CLIs the end-to-end tests run (npm ci in test/agent-clis)');
  const npm = process.env['npm_execpath'] ? [process.execPath, process.env['npm_execpath']] : ['npm'];
  const result = spawnSync(npm[0], [...npm.slice(1), 'ci', '--prefix', dir, '--no-audit', '--no-fund'], {
    cwd: dir,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error(
      `agent-clis: npm ci in ${dir} failed (exit ${result.status ?? result.signal}); fix what it printed above and run npm run test:agent-clis again`,
    );
    process.exit(1);
  }
  writeFileSync(stamp, `${lockHash}\n`);
}
