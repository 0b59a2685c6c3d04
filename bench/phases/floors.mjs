// The floors: what the machine itself charges for the primitives wiggum cannot avoid.
import { spawn } from 'node:child_process';
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The minimum a crash-safe replace costs: open a temp file, write, fsync, close, rename over the
 * target, fsync the folder. Synchronous calls, so no thread-pool hops are counted.
 */
export function fsyncWriteRename(target, bytes) {
  const temp = join(dirname(target), '.floor.tmp');
  const fd = openSync(temp, 'w', 0o644);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
  const dir = openSync(dirname(target), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** Spawns a command and resolves when it has exited (stdio ignored). */
export function spawnAndWait(command, args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`))));
  });
}

export const spawnTrue = () => spawnAndWait('/bin/true');
export const spawnNodeNothing = () => spawnAndWait(process.execPath, ['-e', '0']);
