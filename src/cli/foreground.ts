import { existsSync } from 'node:fs';
import type { WiggumConfig } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { LoopEvent, TaskRunResult } from '../loop/events.js';
import type { RunOverrides } from '../loop/prepare.js';
import { runTask } from '../loop/run-task.js';
import { systemClock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
import { stopFlagFor } from '../vault/layout.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { onStopSignals } from './signals.js';
import { describeIterations, iterationCount } from '../task/iteration-count.js';
import { plural } from '../plural.js';

const FLAG_POLL_MS = 500;

export interface ForegroundRun {
  file: string;
  overrides: RunOverrides;
  stream: boolean;
  config: WiggumConfig;
  layout: VaultLayout;
  logger: Logger;
}

/**
 * One task through the loop in the foreground (`wiggum run`, `wiggum ralph`): harness output on
 * stdout, logs and a progress line per iteration on stderr. Ctrl-C or SIGTERM stops the harness and
 * checkpoints the task as interrupted (exit 3); a stop flag stops it (exit 3); running again resumes.
 */
export async function runInForeground(request: ForegroundRun): Promise<{ code: ExitCode; result: TaskRunResult }> {
  const flag = stopFlagFor(request.file);
  if (existsSync(flag)) {
    // A flag set beforehand keeps the task from starting at all: not even one agent run.
    process.stderr.write(`wiggum: not started: the stop flag ${flag} exists; remove it and run again to resume\n`);
    return {
      code: EXIT.stopped,
      result: { status: 'stopped', taskId: null, file: request.file, iterations: 0, reason: 'stop-flag' },
    };
  }
  const controller = new AbortController();
  const stopSignals = onStopSignals(() => controller.abort('interrupted'), request.logger);
  let current = request.file;
  const flagWatch = setInterval(() => {
    if (existsSync(stopFlagFor(current))) controller.abort('stop-flag');
    else if (!existsSync(current)) controller.abort('task-gone');
  }, FLAG_POLL_MS);
  const progress = progressLines();
  let result: TaskRunResult;
  try {
    result = await runTask(
      {
        file: request.file,
        overrides: request.overrides,
        stream: request.stream ? process.stdout : null,
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'started') current = event.file;
          progress(event);
        },
      },
      {
        config: request.config,
        layout: request.layout,
        clock: systemClock,
        random: Math.random,
        logger: request.logger,
        env: process.env,
      },
    );
  } finally {
    clearInterval(flagWatch);
    stopSignals.dispose();
  }
  process.stderr.write(`${summaryLine(result)}\n`);
  const code = result.status === 'done' ? EXIT.complete : result.status === 'rejected' ? EXIT.failed : EXIT.stopped;
  return { code, result };
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
  }
}
