import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import type { IterationRecord } from '../memory/history.js';
import { throughRunLink } from '../memory/run-link.js';
import { readTaskState } from '../task/state.js';
import type { VaultLayout } from '../vault/layout.js';
import { followEnded } from './follow-end.js';
import { GrowingLog } from './log-reader.js';
import { driverOfHarness, harnessOfLog, listLogs, logHeader } from './task-logs.js';
import type { LogFile } from './task-logs.js';
import { sessionHistory, taskSession } from './task-session.js';
import type { TaskSession } from './task-session.js';

/** Where rendered output goes: `logs` writes to stdout, the API's events stream to its response. */
export interface LogSink {
  /** Rendered output (or, raw, the log's bytes as text); resolves once it may take more. */
  output(text: string): Promise<void>;
  /** The line naming a log before its output; raw output keeps it apart (stderr for `logs --raw`). */
  header(text: string): Promise<void>;
}

/**
 * Prints each of a task's harness logs once, in order, and what the newest one gained since the
 * last pass: `wiggum logs` and the API's events stream render the same text.
 */
export class LogPrinter {
  private readonly seen = new Set<string>();
  private open: GrowingLog | null = null;
  private history: IterationRecord[] = [];
  printedAny = false;

  constructor(
    private readonly layout: VaultLayout,
    private readonly config: WiggumConfig,
    private readonly raw: boolean,
    private readonly current: string | null,
    private readonly sink: LogSink,
  ) {}

  async pass(session: TaskSession): Promise<void> {
    if (!session.own) return;
    const logs = (await listLogs(session.paths.logs)).filter(
      (log) => !this.seen.has(log.path) || log.path === this.open?.path,
    );
    for (const log of logs) {
      if (this.open?.path !== log.path) await this.start(log, session);
      await this.write(await this.open!.next());
    }
  }

  private async start(log: LogFile, session: TaskSession): Promise<void> {
    // The log before it is complete once the next exists: what it gained last is shown first.
    if (this.open !== null) await this.write(await this.open.next());
    if (!this.history.some((r) => r.iteration === log.iteration && r.attempt === log.attempt))
      this.history = await sessionHistory(session);
    const harness = harnessOfLog(log, this.history, this.current);
    const shown = relative(this.layout.root, throughRunLink(log.path, session.paths.dir, session.runLink));
    const header = `${this.printedAny ? '\n' : ''}${logHeader(log, harness, shown)}`;
    if (this.raw) await this.sink.header(header);
    else await this.write(header);
    this.seen.add(log.path);
    this.printedAny = true;
    this.open = new GrowingLog(log.path, this.raw ? null : driverOfHarness(harness, this.config).createReader());
  }

  private async write(text: string): Promise<void> {
    if (text !== '') await this.sink.output(text);
  }
}

/** How often a follow looks for new output and new iterations. */
export const FOLLOW_POLL_MS = 250;

export interface FollowOptions {
  /** The task as found when the follow began (its file, id and the session its checkpoint named). */
  task: { id: string; file: string; sessionId: string | undefined };
  printer: LogPrinter;
  /** Resolves after a pause between passes; false once the follower is gone (Ctrl-C, a closed stream). */
  pause: () => Promise<boolean>;
  /** Called after each pass while the task still runs (`logs` says once that no daemon runs). */
  afterPass?: () => Promise<void>;
}

/**
 * Follows a task's logs until the task is no longer running (its checkpoint says so, or its file is
 * gone) or the follower leaves. Returns the loop status that ended it, or null when the follower left.
 */
export async function followTaskLogs(layout: VaultLayout, options: FollowOptions): Promise<string | null> {
  const { task, printer } = options;
  let sessionId = task.sessionId;
  let session = await taskSession({ id: task.id, sessionId }, layout);
  for (;;) {
    // A file that does not read as a task for a moment (its author saving it) has not ended: only a file gone has.
    const state = await readTaskState(task.file).catch(() => null);
    const gone = state === null && !existsSync(task.file);
    // A run that starts after the follow did gets its session id now: its memory is found through it.
    if (state?.loop?.session !== undefined && state.loop.session !== sessionId) {
      sessionId = state.loop.session;
      session = await taskSession({ id: task.id, sessionId }, layout);
    }
    const status = gone ? null : (state?.loop?.status ?? 'queued');
    await printer.pass(session);
    if (followEnded(status)) return status ?? 'gone';
    await options.afterPass?.();
    if (!(await options.pause())) return null;
  }
}

/** One pass over a task's logs as they are now (`logs` without --follow). */
export async function printTaskLogs(
  layout: VaultLayout,
  task: { id: string; sessionId: string | undefined },
  printer: LogPrinter,
): Promise<void> {
  await printer.pass(await taskSession({ id: task.id, sessionId: task.sessionId }, layout));
}
