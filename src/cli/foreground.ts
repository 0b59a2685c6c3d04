import type { WiggumConfig } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { LoopEvent, TaskRunResult } from '../loop/events.js';
import type { RunOverrides } from '../loop/prepare.js';
import { runTask } from '../loop/run-task.js';
import { systemClock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
import { stopFlagFor } from '../vault/layout.js';
import { vaultRunHost } from '../vault/run-host.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { installStopSignals } from './signals.js';
import { Releasers } from '../releasers.js';
import { stopFlagIsSet, watchStopFlag } from '../vault/stop-flag-watch.js';
import { describeIterations, iterationCount } from '../task/iteration-count.js';
import { plural } from '../plural.js';
import { STATE_TABLE, stateOfRunEnd } from '../task/states.js';

const FLAG_POLL_MS = 500;

export interface ForegroundRun {
  file: string;
  overrides: RunOverrides;
  stream: boolean;
  config: WiggumConfig;
  layout: VaultLayout;
  logger: Logger;
  /** Work in the workdir itself, not in a worktree of the task's own (`wiggum ralph`). */
  workInPlace?: boolean;
}

/**
 * One task through the loop in the foreground (`wiggum run`, `wiggum ralph`): harness output on
 * stdout, logs and a progress line per iteration on stderr. Ctrl-C or SIGTERM stops the harness and
 * checkpoints the task as interrupted (exit 3); a stop flag stops it (exit 3); running again resumes.
 */
export async function runInForeground(request: ForegroundRun): Promise<{ code: ExitCode; result: TaskRunResult }> {
  if (stopFlagIsSet(request.file)) {
    // A flag set beforehand keeps the task from starting at all: not even one agent run.
    const flag = stopFlagFor(request.file);
    process.stderr.write(`wiggum: not started: the stop flag ${flag} exists; remove it and run again to resume\n`);
    return {
      code: EXIT.stopped,
      result: { status: 'stopped', taskId: null, file: request.file, iterations: 0, reason: 'stop-flag' },
    };
  }
  const controller = new AbortController();
  // A second signal kills the agent at once, as the daemon's does, before the process exits: no
  // agent outlives the command that started it.
  const killAgent = new AbortController();
  // The daemon's lifecycle, at the size of one task: each part started adds its release, and a
  // release that throws is remembered so that the command exits non-zero saying which.
  const releaseFailures: ReleaseFailure[] = [];
  const releasers = new Releasers(undefined, (error, part) => releaseFailures.push({ part, error }));
  let current = request.file;
  let result: TaskRunResult;
  try {
    releasers.add(
      'signal handlers',
      installStopSignals({
        stop: (signal) => {
          request.logger.warn(
            { event: 'signal.stopping', signal },
            `${signal}: stopping the harness and checkpointing (send it again to exit at once)`,
          );
          controller.abort('interrupted');
        },
        beforeExit: (signal) => {
          request.logger.warn(
            { event: 'signal.forced-exit', signal },
            `${signal} again: killing the agent and exiting at once`,
          );
          // Its listeners signal synchronously: SIGKILL reaches the agent's group before the exit.
          killAgent.abort();
        },
      }),
    );
    releasers.add(
      'stop flag watch',
      watchStopFlag({
        file: () => current,
        intervalMs: FLAG_POLL_MS,
        clock: systemClock,
        onStop: (reason) => controller.abort(reason),
      }),
    );
    const progress = progressLines();
    result = await runTask(
      {
        file: request.file,
        overrides: request.overrides,
        stream: request.stream ? process.stdout : null,
        signal: controller.signal,
        kill: killAgent.signal,
        onEvent: (event) => {
          if (event.type === 'started') current = event.file;
          progress(event);
        },
      },
      {
        config: request.config,
        host: vaultRunHost(request.layout),
        clock: systemClock,
        random: Math.random,
        logger: request.logger,
        env: process.env,
        ...(request.workInPlace === true ? { workInPlace: true } : {}),
      },
    );
  } finally {
    await releasers.releaseAll();
  }
  process.stderr.write(`${summaryLine(result)}\n`);
  const ending = foregroundEnding(result, releaseFailures);
  for (const line of ending.failures) process.stderr.write(`${line}\n`);
  return { code: ending.code, result };
}

/** A part of the foreground run's lifecycle whose release threw. */
export interface ReleaseFailure {
  part: string;
  error: unknown;
}

/**
 * The exit code of a foreground run, and what to say when its lifecycle failed: done 0, rejected
 * 1, stopped or interrupted 3; but a part that could not be released (a signal handler left
 * installed, a watch left running) fails the command (1) whatever the task did, since the process
 * is no longer in the state the run promised to leave it in.
 */
export function foregroundEnding(
  result: TaskRunResult,
  releaseFailures: readonly ReleaseFailure[],
): { code: ExitCode; failures: string[] } {
  const failures = releaseFailures.map(
    ({ part, error }) =>
      `wiggum: failed: could not release the ${part} (${error instanceof Error ? error.message : String(error)}); the task's own outcome, said above, stands`,
  );
  if (failures.length > 0) return { code: EXIT.failed, failures };
  // The table of task states gives each ending's exit code; a run ends only in one that has one.
  const code = STATE_TABLE[stateOfRunEnd(result)].exitCode ?? EXIT.stopped;
  return { code, failures };
}

/** On a terminal: one line per iteration (i/N, the story being worked on, time so far). */
function progressLines(): (event: LoopEvent) => void {
  let startedAt = Date.now();
  return (event) => {
    if (!process.stderr.isTTY) return;
    if (event.type === 'started') startedAt = Date.now();
    if (event.type === 'iteration') {
      const elapsed = ((Date.now() - startedAt) / 1000).toFixed(1);
      const retry = event.attempt > 0 ? ` (retry ${event.attempt})` : '';
      process.stderr.write(
        `\u25b6 ${describeIterations(iterationCount(event.iteration - 1, event.maxIterations, true))}${retry} · ${event.step ?? 'no open story'} · ${elapsed} s elapsed\n`,
      );
    }
    if (event.type === 'waiting' && Number.isFinite(event.untilMs)) {
      process.stderr.write(`\u23f8 waiting ${((event.untilMs - Date.now()) / 1000).toFixed(1)} s (${event.why})\n`);
    }
  };
}

function summaryLine(result: TaskRunResult): string {
  switch (result.status) {
    case 'done':
      return `wiggum: done after ${plural(result.iterations, 'iteration')}: ${result.file}`;
    case 'rejected':
      return `wiggum: rejected (${result.code ?? 'error'}): ${result.reason ?? ''}\n  the failure report is in ${result.file}`;
    case 'stopped':
      return `wiggum: stopped after ${plural(result.iterations, 'iteration')}; remove the stop flag and run again to resume`;
    case 'interrupted':
      if (result.reason === 'task-gone')
        return `wiggum: the task file was moved or deleted after ${plural(result.iterations, 'iteration')}; its memory is kept, and the task resumes from it if the file comes back`;
      if (result.reason !== undefined && result.reason !== 'interrupted')
        return `wiggum: not ended after ${plural(result.iterations, 'iteration')}: ${result.reason}`;
      return `wiggum: interrupted after ${plural(result.iterations, 'iteration')}; run the same command again to resume`;
    case 'blocked':
      return `wiggum: blocked: the agent asked a question, now in ${result.file}; answer it under ## Answer and move the file back to Approved/ (or run wiggum answer ${result.taskId ?? 'ID'} "text")`;
  }
}
