#!/usr/bin/env node
// The main job: the daemon on a fresh copy of vault-example/ (the tracked files are never touched),
// with the built-in demo agent: no network, no API key. Extra arguments go to `wiggum start`
// (e.g. --exit-when-idle).
import { spawn } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vault = join(root, '.demo', 'vault');
rmSync(vault, { recursive: true, force: true });
cpSync(join(root, 'vault-example'), vault, { recursive: true });
const shown = relative(process.cwd(), vault) || '.';
console.error(`wiggum demo: a fresh copy of vault-example/ is in ${shown}/`);
console.error(`  watch the log; afterwards see ${shown}/Done/, ${shown}/Rejected/ and ${shown}/Dashboard.md`);
console.error(`  drop more tasks into ${shown}/Approved/ while it runs; Ctrl-C stops it\n`);

const child = spawn(process.execPath, [join(root, 'dist', 'cli', 'main.js'), 'start', '--vault', vault, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal === null ? 1 : 3);
});
