// Everything the bench creates is registered here and removed on any exit: temp dirs, and the
// process groups of the daemons it started (each daemon is spawned detached, so it leads a group).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs = new Set();
const groups = new Set();
let installed = false;

export function tempDir(prefix) {
  install();
  const dir = mkdtempSync(join(tmpdir(), `wiggum-bench-${prefix}-`));
  dirs.add(dir);
  return dir;
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
}

/** A process group to SIGKILL at exit unless it was released (its leader exited and was reaped). */
export function trackGroup(pgid) {
  install();
  groups.add(pgid);
}

export function releaseGroup(pgid) {
  groups.delete(pgid);
}

/** Kills what is left and removes every temp dir. Synchronous: it also runs from process.on('exit'). */
export function cleanupAll() {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  groups.clear();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

function install() {
  if (installed) return;
  installed = true;
  process.on('exit', cleanupAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal}, cleaning up\n`);
      cleanupAll();
      process.exit(130);
    });
  }
  process.on('uncaughtException', (error) => {
    process.stderr.write(`bench: ${error?.stack ?? error}\n`);
    cleanupAll();
    process.exit(1);
  });
  process.on('unhandledRejection', (error) => {
    process.stderr.write(`bench: ${error?.stack ?? error}\n`);
    cleanupAll();
    process.exit(1);
  });
}
