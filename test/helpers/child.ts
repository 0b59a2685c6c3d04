import { spawn } from 'node:child_process';
import type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(REPO_ROOT, 'dist', 'cli', 'main.js');

/** Tests that run the built code need `npm run build` first; `npm test` does it. */
export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build before these tests (npm test does)`);
}

/** Resolves once `child` has printed at least `count` lines on stdout. */
export function waitForLines(child: ChildProcess, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString().split('\n').length - 1;
      if (seen >= count) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`child exited (${code ?? signal}) after ${seen} lines`)));
  });
}

/** Kills with SIGKILL and resolves when the process is gone. */
export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to completion. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  requireBuild();
  return outputOf(
    spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? REPO_ROOT, env: options.env ?? process.env }),
  );
}

/** A spawned child's exit code and whole output, once it has closed. */
export function outputOf(child: ChildProcessWithoutNullStreams): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export { spawn };
