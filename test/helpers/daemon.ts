import { spawn } from 'node:child_process';
import { afterEach } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import type { LogEvent } from '../../src/log/events.js';
import { CLI, requireBuild } from './child.js';
import { isEvent } from './log-events.js';

export interface DaemonLine {
  level: number;
  msg: string;
  /** What happened (docs/logging.md): what tests wait on. */
  event?: string;
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
  static start(
    vault: string,
    args: string[] = [],
    env: NodeJS.ProcessEnv = {},
    nodeArgs: string[] = [],
    user?: RunAs,
  ): DaemonProcess {
    requireBuild();
    const child = spawn(
      user?.node ?? process.execPath,
      [...nodeArgs, user?.cli ?? CLI, 'start', '--vault', vault, '--log-level', 'debug', ...args],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, JOURNAL_STREAM: '', ...env },
        ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
      },
    );
    return new DaemonProcess(child);
  }

  /** Resolves with the first log line (seen so far or to come) matching `match`; fails after `guardMs`. */
  waitForLog(match: (line: DaemonLine) => boolean, what = 'a log line', guardMs = 60_000): Promise<DaemonLine> {
    return this.until(() => this.lines.find(match), what, guardMs);
  }

  /** Resolves with the first line saying `event` happened with each of `fields` (`{ taskId }`). */
  waitForEvent(event: LogEvent, fields: Record<string, unknown> = {}, guardMs = 60_000): Promise<DaemonLine> {
    return this.waitForLog(isEvent(event, fields), `${event} ${JSON.stringify(fields)}`, guardMs);
  }

  /**
   * Resolves once `count` lines match. Fails only when no further line has matched for `stallMs`
   * (or the daemon exits first): a busy machine gets there later, a stuck daemon still fails.
   */
  async waitForCount(
    match: (line: DaemonLine) => boolean,
    count: number,
    what: string,
    stallMs = 120_000,
  ): Promise<void> {
    let scanned = 0;
    let matched = 0;
    const scan = (): number => {
      for (; scanned < this.lines.length; scanned += 1) if (match(this.lines[scanned] as DaemonLine)) matched += 1;
      return matched;
    };
    while (scan() < count) {
      const before = matched;
      await this.until(
        () => (scan() > before ? true : undefined),
        `${count} × ${what} (${before} so far, none more for ${stallMs} ms)`,
        stallMs,
      );
    }
  }

  /** Resolves with what `probe` finds, checked now and after each chunk of output; fails after `guardMs` or when the daemon exits first. */
  private until<T>(probe: () => T | undefined, what: string, guardMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = probe();
        if (found === undefined) return false;
        cleanup();
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `gave up waiting for ${what}; stderr: ${this.stderr}; last lines: ${this.lines
              .slice(-5)
              .map((l) => `${String(l.event)}: ${l.msg}`)
              .join(' | ')}`,
          ),
        );
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

  ready(): Promise<DaemonLine> {
    return this.waitForEvent('daemon.started');
  }

  /**
   * SIGTERM, then SIGKILL should the drain hang for `guardMs`; resolves with how the daemon exited
   * (a forced stop shows as signal SIGKILL, so a test that expects exit 0 fails on it).
   */
  async drain(guardMs = 120_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.kill('SIGTERM');
    const forced = setTimeout(() => this.kill('SIGKILL'), guardMs);
    const exit = await this.exited;
    clearTimeout(forced);
    return exit;
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}

/**
 * The list a test file pushes the daemons it starts into; each is drained after its test (a drain,
 * not SIGKILL: the daemon stops its harnesses, so no test leaves an agent running).
 */
export function drainedAfterEach(): DaemonProcess[] {
  const daemons: DaemonProcess[] = [];
  afterEach(async () => {
    for (const daemon of daemons.splice(0)) await daemon.drain(30_000);
  });
  return daemons;
}
