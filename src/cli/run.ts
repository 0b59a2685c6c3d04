import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.js';
import { createLogger } from '../log/logger.js';
import type { LogLevel } from '../log/logger.js';
import type { LoopEvent, TaskRunResult } from '../loop/events.js';
import { runTask } from '../loop/run-task.js';
import { systemClock } from '../time/clock.js';
import { findVaultRoot } from '../vault/find-root.js';
import { stopFlagFor, vaultLayout } from '../vault/layout.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { onStopSignals } from './signals.js';

export interface RunOptions {
  harness?: string;
  maxIterations?: number;
  stream: boolean;
  failFast?: boolean;
  completionPromise?: string;
  vault?: string;
  config?: string;
  logLevel?: LogLevel;
}

const FLAG_POLL_MS = 500;

/**
 * `wiggum run FILE`: one task through the loop in the foreground, exactly as the daemon runs it.
 * Harness output goes to stdout, logs to stderr. Ctrl-C or SIGTERM stops the harness, checkpoints
 * the task as interrupted and exits 3; running the command again resumes it.
 */
export async function runCommand(file: string, options: RunOptions): Promise<ExitCode> {
  const path = resolve(file);
  const vault = options.vault ?? (await findVaultRoot(path));
  const config = await loadConfig({ vault, ...(options.config === undefined ? {} : { file: options.config }) });
  const layout = vaultLayout(vault, config);
  const logger = createLogger({ level: options.logLevel ?? config.log.level, fd: 2 });
  const controller = new AbortController();
  const stopSignals = onStopSignals(() => controller.abort('interrupted'), logger);
  let current = path;
  const flagWatch = setInterval(() => {
    if (existsSync(stopFlagFor(current))) controller.abort('stop-flag');
    else if (!existsSync(current)) controller.abort('task-gone');
  }, FLAG_POLL_MS);

  let result: TaskRunResult;
  try {
    result = await runTask(
      {
        file: path,
        overrides: {
          ...(options.harness === undefined ? {} : { harness: options.harness }),
          ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
          ...(options.failFast === undefined ? {} : { failFast: options.failFast }),
          ...(options.completionPromise === undefined ? {} : { completionPromise: options.completionPromise }),
        },
        stream: options.stream ? process.stdout : null,
        signal: controller.signal,
        isHeld: () => Promise.resolve(existsSync(layout.stopFile)),
        onEvent: (event) => {
          if (event.type === 'started') current = event.file;
          progressLine(event);
        },
      },
      { config, layout, clock: systemClock, random: Math.random, logger, env: process.env },
    );
  } finally {
    clearInterval(flagWatch);
    stopSignals.dispose();
  }
  process.stderr.write(`${summaryLine(result)}\n`);
  return result.status === 'done' ? EXIT.complete : result.status === 'rejected' ? EXIT.failed : EXIT.stopped;
}

let loopStartedAt = 0;

/** On a terminal: one line per iteration (i/N, the story being worked on, time so far). */
function progressLine(event: LoopEvent): void {
  if (!process.stderr.isTTY) return;
  if (event.type === 'started') loopStartedAt = Date.now();
  if (event.type === 'iteration') {
    const elapsed = ((Date.now() - loopStartedAt) / 1000).toFixed(1);
    const retry = event.attempt > 0 ? ` (retry ${event.attempt})` : '';
    process.stderr.write(`\u25b6 iteration ${event.iteration}/${event.maxIterations}${retry} · ${event.step ?? 'no open story'} · ${elapsed} s elapsed\n`);
  }
  if (event.type === 'waiting' && Number.isFinite(event.untilMs)) {
    process.stderr.write(`\u23f8 waiting ${((event.untilMs - Date.now()) / 1000).toFixed(1)} s (${event.why})\n`);
  }
}

function summaryLine(result: TaskRunResult): string {
  switch (result.status) {
    case 'done':
      return `wiggum: done after ${result.iterations} iteration(s): ${result.file}`;
    case 'rejected':
      return `wiggum: rejected (${result.code ?? 'error'}): ${result.reason ?? ''}\n  the failure report is in ${result.file}`;
    case 'stopped':
      return `wiggum: stopped after ${result.iterations} iteration(s); remove the stop flag and run again to resume`;
    case 'interrupted':
      return `wiggum: interrupted after ${result.iterations} iteration(s); run the same command again to resume`;
  }
}
