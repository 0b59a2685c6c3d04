import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { CLI, requireBuild } from './child.js';

export interface DaemonLine {
  level: number;
  msg: string;
  taskId?: string;
  [key: string]: unknown;
}

/** Another user, and the node and CLI that user runs: both at paths the user can reach. */
export interface RunAs {
  uid: number;
  gid: number;
  node: string;
  cli: string;
}

/** The real daemon (`wiggum start`) as a child process, with its JSON log lines collected. */
export class DaemonProcess {
  readonly lines: DaemonLine[] = [];
  /** stdout as written, `<N>` journald prefixes included. */
  rawStdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly waiters = new Set<() => void>();
  private buffer = '';

  private constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      this.rawStdout += chunk.toString();
      let newline = this.buffer.indexOf('\n');
      while (newline !== -1) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (line.trim() !== '') this.lines.push(JSON.parse(line.replace(/^<\d>/, '')) as DaemonLine);
        newline = this.buffer.indexOf('\n');
      }
      for (const wake of this.waiters) wake();
    });
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** `nodeArgs` go to node before the CLI (`--import` of a test-only preload such as crash-at.mjs). */
  /**
   * `user` runs it as another user (a test running as root that needs file modes to apply), from
   * a copy of the build that user can reach (see staged-build.ts).
   */
  static start(vault: string, args: string[] = [], env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = [], user?: RunAs): DaemonProcess {
    requireBuild();
    const child = spawn(user?.node ?? process.execPath, [...nodeArgs, user?.cli ?? CLI, 'start', '--vault', vault, '--log-level', 'debug', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, JOURNAL_STREAM: '', ...env },
      ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
    });
    return new DaemonProcess(child);
  }

  /** Resolves with the first log line (seen so far or to come) matching `match`. */
  waitForLog(match: (line: DaemonLine) => boolean, what = 'a log line', guardMs = 60_000): Promise<DaemonLine> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const line = this.lines.find(match);
        if (line === undefined) return false;
        cleanup();
        resolve(line);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`gave up waiting for ${what}; stderr: ${this.stderr}; last lines: ${this.lines.slice(-5).map((l) => l.msg).join(' | ')}`));
      }, guardMs);
      const wake = (): void => void check();
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
      };
      if (check()) return;
      this.waiters.add(wake);
      void this.exited.then(() => {
        if (!check()) {
          cleanup();
          reject(new Error(`the daemon exited before ${what}; stderr: ${this.stderr}`));
        }
      });
    });
  }

  /** Resolves once `count` lines match. */
  async waitForCount(match: (line: DaemonLine) => boolean, count: number, what: string, guardMs = 120_000): Promise<void> {
    await this.waitForLog(() => this.lines.filter(match).length >= count, `${count} × ${what}`, guardMs);
  }

  ready(): Promise<DaemonLine> {
    return this.waitForLog((line) => line.msg.startsWith('watching '), 'the daemon to be ready');
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}
