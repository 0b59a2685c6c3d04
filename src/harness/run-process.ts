import { once } from 'node:events';
import type { Readable } from 'node:stream';
import type { WiggumError } from '../errors.js';
import type { SecretMask } from '../secret-mask.js';
import { CappedLog } from './output-log.js';
import { OutputSink } from './output-sink.js';
import { killProcessGroup } from './process-group.js';
import { systemProcessHost } from './process-host.js';
import type { HostChild, ProcessHost } from './process-host.js';
import { RUN_MARKER_VARIABLE, newRunMarker } from './process-tree.js';
import type { RunPids } from './process-tree.js';
import { spawnFailure } from './spawn-error.js';
import { killStrays } from './stray-kill.js';
import { meterRun } from './tree-usage.js';
import type { ResourceUsage } from './tree-usage.js';

/**
 * How long the output pipes may stay open once the group and the run's strays are gone. Only a
 * process that left the group and dropped the run's marker (started itself again with a clean
 * environment) can hold them longer; we stop reading then, rather than wait for it forever.
 */
const PIPE_DRAIN_MS = 2_000;

/**
 * How often the run's processes are measured. Each look reads the environment of every process
 * on the machine (a few ms with hundreds of them), so not much more often; what happens between
 * two looks is estimated (see `TreeUsage`).
 */
const SAMPLE_MS = 500;
/**
 * The gaps before the first looks (50 ms after the spawn, then 100 and 200 ms more) are shorter
 * than SAMPLE_MS: a short run (a quick agent, a retry that fails at once) would
 * otherwise be seen only as it starts, before it has grown, and its leader cannot be read once it
 * has exited.
 */
const FIRST_SAMPLES_MS = [50, 100, 200];

/**
 * The reason the timers of a finished run are cancelled with, made once: `abort()` without one
 * builds a DOMException and its stack trace on every run, which the profile of a quick agent's
 * loop showed (nothing reads it: the cancelled sleeps' rejections are ignored).
 */
const TIMERS_CANCELLED = new Error('the run is over: its timers are cancelled');

/** One command to run as its own process group, with its output captured. */
export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  /**
   * The whole environment of the child (see `harnessEnvironment`); nothing is inherited. runProcess
   * adds `WIGGUM_RUN_MARKER`, by which it finds the run's processes that left the group.
   */
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
  /** Values hidden from the log, the tails and `onOutput`, even when cut across two chunks (output-sink.ts). */
  mask?: SecretMask;
  /** Every chunk as it arrives (masked), for live streaming and output parsers. Must not throw. */
  onOutput?: (chunk: Buffer, stream: 'stdout' | 'stderr') => void;
  /**
   * The run's marker just before spawn, synchronously: recorded then, it finds the harness even
   * when wiggum is killed between the spawn and the pid's record. Must not throw.
   */
  onMarker?: (marker: string) => void;
  /**
   * The pid (= process group id) and the run's marker right after spawn, so both can be recorded
   * and what is left of the run killed after a crash (`recordHarness`). Must not throw.
   */
  onSpawn?: (pid: number, marker: string) => void;
  /** Aborting is a stop request: SIGTERM to the group, SIGKILL after `stopGraceMs`. */
  signal?: AbortSignal;
  /**
   * Aborting ends the run now: SIGKILL to the group (and no grace for what left it), whatever is
   * left of `stopGraceMs`. A daemon whose drain grace ran out uses it, so no agent outlives it.
   */
  kill?: AbortSignal;
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
  /**
   * How many processes carrying the run's marker were still running once the leader had exited and
   * its group was gone, and were killed: those that left the group, such as background jobs an
   * agent's shell started with setsid. Group members are `leftoverKilled`, not counted here.
   */
  straysKilled: number;
  /**
   * CPU time and peak memory of every process of the run (the leader and all that inherited its
   * marker, in the group or not), from samples every `SAMPLE_MS`; see `TreeUsage` for what is
   * estimated. null when it could not be measured: the run never started, or there is no /proc.
   */
  resources: ResourceUsage | null;
}

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
  straysKilled: 0,
  resources: null,
};

/**
 * Runs `spec.command` directly (never through a shell) as the leader of a new process group, and
 * resolves once the leader has exited, nothing of its group nor anything else carrying the run's
 * marker is left running, the output pipes are closed and the log file is flushed and closed. It
 * rejects only if the log file cannot be opened (before anything is spawned). Spawning, signals,
 * the look at the process table and every wait go through `host`.
 */
export async function runProcess(spec: ProcessSpec, host: ProcessHost = systemProcessHost): Promise<ProcessResult> {
  const startedAtMs = host.clock.now();
  const startedAt = host.monotonicNow();
  const log = spec.logFile === null ? null : CappedLog.open(spec.logFile, spec.logMaxBytes);
  const finish = async (outcome: Partial<Outcome>): Promise<ProcessResult> => {
    await log?.close();
    return {
      ...notStarted,
      ...outcome,
      startedAtMs,
      durationMs: Math.round(host.monotonicNow() - startedAt),
      logTruncated: log?.truncated ?? false,
      logError: log?.error ?? null,
    };
  };

  if (spec.signal?.aborted === true) return finish({ stopped: true });
  const attempt = { command: spec.command, cwd: spec.cwd, configKey: spec.configKey };
  const marker = newRunMarker();
  spec.onMarker?.(marker);
  // Before the spawn: every process of the run gets its pid after this reading (pid-window.ts).
  const pidsBefore = host.processTable.pidCounters();
  let child: HostChild;
  try {
    child = host.spawn(spec.command, spec.args, { cwd: spec.cwd, env: { ...spec.env, [RUN_MARKER_VARIABLE]: marker } });
  } catch (cause) {
    return finish({ spawnError: spawnFailure(attempt, cause) });
  }
  if (child.pid === undefined) {
    // ENOENT, EACCES and the like arrive as an 'error' event on the next tick.
    const [cause] = (await once(child, 'error')) as [unknown];
    return finish({ spawnError: spawnFailure(attempt, cause) });
  }
  const run = pidsBefore === null ? null : { leaderPid: child.pid, before: pidsBefore };
  return finish(await supervise(child, { pgid: child.pid, marker, run }, spec, log, host));
}

/** Everything between a successful spawn and an empty process group with no strays. */
async function supervise(
  child: HostChild,
  { pgid, marker, run }: { pgid: number; marker: string; run: RunPids | null },
  spec: ProcessSpec,
  log: CappedLog | null,
  host: ProcessHost,
): Promise<Partial<Outcome>> {
  const state = {
    outputBytes: 0,
    lastOutputAt: host.monotonicNow(),
    leaderExited: false,
    stopReason: null as StopReason | null,
    stopping: null as Promise<boolean> | null,
  };
  const streams = [child.stdout, child.stderr];
  const outputClosed = Promise.all(
    streams.map((stream) => new Promise<void>((resolve) => stream.once('close', () => resolve()))),
  );
  const sink = new OutputSink(streams, log, spec.tailBytes, spec.mask, spec.onOutput);
  const onData =
    (name: 'stdout' | 'stderr') =>
    (chunk: Buffer): void => {
      state.outputBytes += chunk.length;
      state.lastOutputAt = host.monotonicNow();
      sink.push(name, chunk);
    };
  child.stdout.on('data', onData('stdout'));
  child.stderr.on('data', onData('stderr'));
  child.stdout.once('end', () => sink.end('stdout'));
  child.stderr.once('end', () => sink.end('stderr'));
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
    state.stopping = killProcessGroup(pgid, spec.stopGraceMs, host);
  };
  // The timers are sleeps on the host's clock, all cancelled by one abort when the leader exits.
  const timers = new AbortController();
  const after = (ms: number, then: () => void): void => {
    host.clock.sleep(ms, timers.signal).then(then, () => undefined);
  };
  if (spec.timeoutMs > 0) after(spec.timeoutMs, () => stop('timeout'));
  const checkIdle = (): void => {
    // One timer re-armed for the remaining silence, instead of a reset on every chunk of a flood.
    const silentMs = host.monotonicNow() - state.lastOutputAt;
    if (silentMs >= spec.idleTimeoutMs) stop('idle');
    else after(spec.idleTimeoutMs - silentMs, checkIdle);
  };
  if (spec.idleTimeoutMs > 0) after(spec.idleTimeoutMs, checkIdle);
  const onAbort = (): void => stop('abort');
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  // SIGKILL now: a stop already under way is waiting out its grace, and sees the group gone. A
  // group whose leader has exited may still hold leftovers, so the group is signalled either way.
  const onKill = (): void => {
    stop('abort');
    host.signalGroup(pgid, 'SIGKILL');
  };
  if (spec.kill?.aborted === true) onKill();
  else spec.kill?.addEventListener('abort', onKill, { once: true });
  spec.onSpawn?.(pgid, marker);
  const meter = meterRun(marker, host.processTable, run);
  // No look at spawn: the leader has only just exec'd, so it would show nothing worth its cost
  // (a look reads every process's environment, about 1.5 ms, which an agent that answers at once
  // would pay on every run).
  let looks = 0;
  const measure = (): void => {
    meter.sample();
    looks += 1;
    after(FIRST_SAMPLES_MS[looks] ?? SAMPLE_MS, measure);
  };
  after(FIRST_SAMPLES_MS[0] ?? SAMPLE_MS, measure);

  const [exitCode, signal] = await leaderExit;
  state.leaderExited = true;
  timers.abort(TIMERS_CANCELLED);
  spec.signal?.removeEventListener('abort', onAbort);
  // Once killing is asked for, nothing left of the run gets a grace.
  const graceMs = (): number => (spec.kill?.aborted === true ? 0 : spec.stopGraceMs);

  // No orphans: whatever the leader started in its group dies with it, and so does what left the
  // group but carries the marker; those would otherwise outlive the run, and may hold our pipes.
  const leftoverKilled = host.isGroupAlive(pgid);
  // The leader is gone already (reaped to tell us it exited); look at the members about to be killed.
  if (leftoverKilled) meter.sample();
  await (state.stopping ?? (leftoverKilled ? killProcessGroup(pgid, graceMs(), host) : null));
  // The group is empty: this last sample holds only the strays, and is the first look for them.
  const straysKilled = await killStrays(marker, graceMs(), host, meter.sample(), run);
  await drainOutput(streams, outputClosed, host);
  sink.end('stdout');
  sink.end('stderr');
  // Kept until here: a kill while leftovers of the group wait out their grace ends them too.
  spec.kill?.removeEventListener('abort', onKill);
  child.stdin.destroy();

  return {
    pid: pgid,
    exitCode,
    signal,
    timedOut: state.stopReason === 'timeout',
    idleTimedOut: state.stopReason === 'idle',
    stopped: state.stopReason === 'abort',
    stdoutTail: sink.tails.stdout.text(),
    stderrTail: sink.tails.stderr.text(),
    outputBytes: state.outputBytes,
    leftoverKilled,
    straysKilled,
    resources: meter.usage(),
  };
}

/** Reads what is left in the pipes; gives up on pipes still held open by a process outside the group. */
async function drainOutput(streams: Readable[], closed: Promise<unknown>, host: ProcessHost): Promise<void> {
  const giveUp = new AbortController();
  const late = await Promise.race([
    closed.then(() => false),
    host.clock.sleep(PIPE_DRAIN_MS, giveUp.signal).then(
      () => true,
      () => false,
    ),
  ]);
  giveUp.abort(TIMERS_CANCELLED);
  if (late) {
    for (const stream of streams) stream.destroy();
    await closed;
  }
}
