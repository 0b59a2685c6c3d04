#!/usr/bin/env node
// The main job: the daemon on a fresh copy of vault-example/ (the tracked files are never touched),
// with the built-in demo agent: no network, no API key. It runs the vault to its end
// (--exit-when-idle), then says what went where and exits with the daemon's code. Extra arguments
// go to `wiggum start`.
//
// Signals: the daemon runs in a process group of its own, so a Ctrl-C (which a terminal sends to
// the whole foreground group, and npm passes on once more) reaches it once, through this wrapper:
// the first SIGINT or SIGTERM drains it; copies that arrive within DUPLICATE_MS of the first are the
// same Ctrl-C delivered twice; a later one is passed on and ends the daemon at once.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DUPLICATE_MS = 1000;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vault = join(root, '.demo', 'vault');
const cli = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(cli)) {
  console.error(
    `wiggum demo: ${relative(process.cwd(), cli) || cli} is missing: run \`npm start\` (it builds first) or \`npm run build\``,
  );
  process.exit(2);
}
const { demoSummary } = await import(pathToFileURL(join(root, 'dist', 'demo', 'summary.js')).href);
rmSync(vault, { recursive: true, force: true });
cpSync(join(root, 'vault-example'), vault, { recursive: true });
const shown = relative(process.cwd(), vault) || '.';
console.error(`wiggum demo: a fresh copy of vault-example/ is in ${shown}/`);
console.error('  it runs until every task is in Done/ or Rejected/, then says where to look and exits');
console.error(
  `  drop more tasks into ${shown}/Approved/ while it runs;\n  one Ctrl-C stops it (running tasks are checkpointed)\n`,
);

const child = spawn(process.execPath, [cli, 'start', '--vault', vault, '--exit-when-idle', ...process.argv.slice(2)], {
  stdio: 'inherit',
  detached: true,
});
let firstSignalAt = null;
const pass = (signal) => {
  const now = Date.now();
  if (firstSignalAt !== null && now - firstSignalAt < DUPLICATE_MS) return;
  firstSignalAt ??= now;
  child.kill(signal);
};
process.on('SIGINT', () => pass('SIGINT'));
process.on('SIGTERM', () => pass('SIGTERM'));
// The terminal closed: the daemon (in its own group) would not hear of it; stop it as a Ctrl-C would.
process.on('SIGHUP', () => pass('SIGTERM'));

child.on('exit', (code, signal) => {
  const tasks = (folder) => {
    try {
      return readdirSync(join(vault, folder))
        .filter((name) => name.endsWith('.md') && !name.startsWith('.'))
        .sort();
    } catch {
      return [];
    }
  };
  const again = `node ${relative(process.cwd(), cli) || cli} start --vault ${shown}`;
  const lines = demoSummary({
    vault: shown,
    done: tasks('Done'),
    rejected: tasks('Rejected'),
    approved: tasks('Approved'),
    exitCode: code,
    interrupted: firstSignalAt !== null,
    again,
  });
  console.error(lines.join('\n'));
  process.exitCode = code ?? (signal === null ? 1 : 3);
});
