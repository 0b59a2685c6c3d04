import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { WiggumError } from '../errors.js';
import { CappedLog } from './output-log.js';
import { OutputTail } from './output-tail.js';
import { isProcessGroupAlive, killProcessGroup } from './process-group.js';
import { spawnFailure } from './spawn-error.js';

/**
 * How long the output pipes may stay open once the whole process group is gone. Only a process
 * that left the group (setsid) and kept our pipes can hold them longer; we stop reading then,
 * rather than wait for it forever.
 */
const PIPE_DRAIN_MS = 2_000;

/** One command to run as its own process group, with its output captured. */
export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  /** The whole environment of the child (see `harnessEnvironment`); nothing is inherited. */
  env: Record<string, string>;
  /** Written to the child's stdin, which is then closed. A child that does not read it is fine. */
  stdin: string;
  /** Limit on the whole run; 0 = none. */
  timeoutMs: number;
  /** Limit on silence (nothing on stdout or stderr); 0 = none. */
  idleTimeoutMs: number;
  /** After SIGTERM to the group, how long before SIGKILL. */
  stopGraceMs: number;
  /** Where stdout and stderr are appended, interleaved as received; null = no log. */
  logFile: string | null;
  /** Cap on what one run appends to `logFile`; past it one line says so and the rest is dropped. */
  logMaxBytes: number;
  /** How much of the end of each stream is kept in memory for the result. */
  tailBytes: number;
  /** Every chunk as it arrives, for live streaming and output parsers. Must not throw. */
  onOutput?: (chunk: Buffer, stream: 'stdout' | 'stderr') => void;
  /** The pid (= process group id) right after spawn, so it can be recorded and killed after a crash. Must not throw. */
  onSpawn?: (pid: number) => void;
  /** Aborting is a stop request: SIGTERM to the group, SIGKILL after `stopGraceMs`. */
  signal?: AbortSignal;
  /** Where the command is configured (e.g. `harnesses.claude.command`), named in spawn errors. */
  configKey?: string;
}

/** How a run ended. Everything the child did is here; `runProcess` does not reject for it. */
export interface ProcessResult {
  pid: number | null;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  startedAtMs: number;
  durationMs: number;
  /** Which of our own stops ended the run (at most one is true). */
  timedOut: boolean;
  idleTimedOut: boolean;
  stopped: boolean;
  /** E_HARNESS_MISSING (not found, not executable) or E_HARNESS_SPAWN; the run never started. */
  spawnError: WiggumError | null;
  /** The last `tailBytes` of each stream, UTF-8, cut on character boundaries. */
  stdoutTail: string;
  stderrTail: string;
  /** Bytes received on stdout and stderr together, logged or not. */
  outputBytes: number;
  logTruncated: boolean;
  /** The log could not be written to the end (E_WRITE); the run itself went on. */
  logError: WiggumError | null;
  /** Members of the group were still running after the leader exited, and were killed. */
  leftoverKilled: boolean;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;
export type Outcome = Omit<ProcessResult, 'startedAtMs' | 'durationMs' | 'logTruncated' | 'logError'>;
type StopReason = 'timeout' | 'idle' | 'abort';

/** A run that never started: every field at rest. Results are built on top of it. */
export const notStarted: Outcome = {
  pid: null,
  exitCode: null,
  signal: null,
  timedOut: false,
  idleTimedOut: false,
  stopped: false,
  spawnError: null,
  stdoutTail: '',
  stderrTail: '',
  outputBytes: 0,
  leftoverKilled: false,
};

/**
 * Runs `spec.command` directly (never through a shell) as the leader of a new process group, and
 * resolves once the leader has exited, nothing of its group is left running, the output pipes are
 * closed and the log file is flushed and closed. It rejects only if the log file cannot be opened
 * (before anything is spawned).
 */
export async function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  const startedAtMs = Date.now();
  const startedAt = performance.now();
  const log = spec.logFile === null ? null : await CappedLog.open(spec.logFile, spec.logMaxBytes);
  const finish = async (outcome: Partial<Outcome>): Promise<ProcessResult> => {
    await log?.close();
    return {
      ...notStarted,
      ...outcome,
      startedAtMs,
      durationMs: Math.round(performance.now() - startedAt),
      logTruncated: log?.truncated ?? false,
      logError: log?.error ?? null,
    };
  };

  if (spec.signal?.aborted === true) return finish({ stopped: true });
  const attempt = { command: spec.command, cwd: spec.cwd, configKey: spec.configKey };
  let child: Child;
  try {
    // detached: the child calls setsid(), so it leads a group we can signal as a whole.
    child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'], shell: false });
  } catch (cause) {
    return finish({ spawnError: spawnFailure(attempt, cause) });
  }
  if (child.pid === undefined) {
    // ENOENT, EACCES and the like arrive as an 'error' event on the next tick.
    const [cause] = (await once(child, 'error')) as [unknown];
    return finish({ spawnError: spawnFailure(attempt, cause) });
  }
  return finish(await supervise(child, child.pid, spec, log));
}

/** Everything between a successful spawn and an empty process group. */
async function supervise(child: Child, pgid: number, spec: ProcessSpec, log: CappedLog | null): Promise<Partial<Outcome>> {
  const tails = { stdout: new OutputTail(spec.tailBytes), stderr: new OutputTail(spec.tailBytes) };
  const state = {
    outputBytes: 0,
    lastOutputAt: performance.now(),
    leaderExited: false,
    stopReason: null as StopReason | null,
    stopping: null as Promise<boolean> | null,
    waitingForLog: false,
  };
  const streams = [child.stdout, child.stderr];
  const outputClosed = Promise.all(streams.map((stream) => new Promise<void>((resolve) => stream.once('close', () => resolve()))));

  const onData = (name: 'stdout' | 'stderr') => (chunk: Buffer): void => {
    state.outputBytes += chunk.length;
    state.lastOutputAt = performance.now();
    tails[name].push(chunk);
    if (log !== null && !log.write(chunk) && !state.waitingForLog) {
      // Backpressure: stop reading until the log catches up, so a flood cannot pile up in memory.
      state.waitingForLog = true;
      for (const stream of streams) stream.pause();
      void log.drained().then(() => {
        state.waitingForLog = false;
        for (const stream of streams) stream.resume();
      });
    }
    spec.onOutput?.(chunk, name);
  };
  child.stdout.on('data', onData('stdout'));
  child.stderr.on('data', onData('stderr'));
  // A read error ends the stream and 'close' follows, which is all we wait for.
  for (const stream of streams) stream.on('error', () => undefined);
  // EPIPE: the child exited or closed stdin before reading its whole prompt; its exit tells the story.
  child.stdin.on('error', () => undefined);
  child.stdin.end(spec.stdin);
  // After a successful spawn 'error' only reports a failed child.kill(); we signal the group ourselves.
  child.on('error', () => undefined);
  const leaderExit = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('exit', (code, signal) => resolve([code, signal]));
  });

  const stop = (reason: StopReason): void => {
    if (state.leaderExited || state.stopReason !== null) return;
    state.stopReason = reason;
    state.stopping = killProcessGroup(pgid, spec.stopGraceMs);
  };
  const timer = spec.timeoutMs > 0 ? setTimeout(() => stop('timeout'), spec.timeoutMs) : undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  const checkIdle = (): void => {
    // One timer re-armed for the remaining silence, instead of a reset on every chunk of a flood.
    const silentMs = performance.now() - state.lastOutputAt;
    if (silentMs >= spec.idleTimeoutMs) stop('idle');
    else idleTimer = setTimeout(checkIdle, spec.idleTimeoutMs - silentMs);
  };
  if (spec.idleTimeoutMs > 0) idleTimer = setTimeout(checkIdle, spec.idleTimeoutMs);
  const onAbort = (): void => stop('abort');
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  spec.onSpawn?.(pgid);

  const [exitCode, signal] = await leaderExit;
  state.leaderExited = true;
  clearTimeout(timer);
  clearTimeout(idleTimer);
  spec.signal?.removeEventListener('abort', onAbort);

  // No orphans: whatever the leader started in its group dies with it.
  const leftoverKilled = isProcessGroupAlive(pgid);
  await (state.stopping ?? (leftoverKilled ? killProcessGroup(pgid, spec.stopGraceMs) : null));
  await drainOutput(streams, outputClosed);
  child.stdin.destroy();

  return {
    pid: pgid,
    exitCode,
    signal,
    timedOut: state.stopReason === 'timeout',
    idleTimedOut: state.stopReason === 'idle',
    stopped: state.stopReason === 'abort',
    stdoutTail: tails.stdout.text(),
    stderrTail: tails.stderr.text(),
    outputBytes: state.outputBytes,
    leftoverKilled,
  };
}

/** Reads what is left in the pipes; gives up on pipes still held open by a process outside the group. */
async function drainOutput(streams: Readable[], closed: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), PIPE_DRAIN_MS);
    }),
  ]);
  clearTimeout(timer);
  if (late) {
    for (const stream of streams) stream.destroy();
    await closed;
  }
}
