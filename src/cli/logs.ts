import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { taskEntry } from '../daemon/view.js';
import { isLockOwnerAlive, readLockOwner } from '../lock/owner-lock.js';
import type { IterationRecord } from '../memory/history.js';
import { throughRunLink } from '../memory/run-link.js';
import { readTaskState } from '../task/state.js';
import { findTask } from '../vault/find-task.js';
import type { VaultLayout } from '../vault/layout.js';
import { abortableSleep } from './abortable-sleep.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { GrowingLog } from './log-reader.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';
import { driverOfHarness, harnessOfLog, listLogs, logHeader } from './task-logs.js';
import type { LogFile } from './task-logs.js';
import { sessionHistory, taskSession } from './task-session.js';
import type { TaskSession } from './task-session.js';
import { followEnded } from './follow-end.js';

export interface LogsOptions extends VaultOptions {
  follow?: boolean;
  raw?: boolean;
}

/** How often --follow looks for new output and new iterations. */
const POLL_MS = 250;

/**
 * `wiggum logs ID [--follow] [--raw]`: every iteration's harness log, in order, rendered as `run`
 * shows it live (or raw). With --follow it keeps reading the newest log as it grows and goes on
 * into the next iteration's, until the task is no longer running.
 */
export async function logsCommand(ref: string, options: LogsOptions): Promise<ExitCode> {
  const { config, layout } = await openVault(options);
  const task = await findTask(ref, [layout.approved, layout.done, layout.rejected], layout.root);
  const current = (await taskEntry(layout, task))?.harness ?? task.frontmatter.harness ?? config.harness.defaultName;
  const printer = new LogPrinter(layout, config, options.raw === true, current ?? null);
  const stopped = new AbortController();
  const stop = (): void => stopped.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.on('error', stop); // a closed pipe (`| head`): nothing more to show
  try {
    let sessionId = task.frontmatter.persistence_loop?.session;
    let session = await taskSession({ id: task.id, sessionId }, layout);
    if (options.follow !== true) {
      await printer.pass(session);
      if (!printer.printedAny)
        process.stderr.write(
          `${task.id} has no harness log yet: no iteration has started (wiggum logs ${task.id} --follow waits for it)\n`,
        );
      return EXIT.complete;
    }
    let told = false;
    for (;;) {
      // A file that does not read as a task for a moment (its author saving it) has not ended: only a file gone has.
      const state = await readTaskState(task.file).catch(() => null);
      const gone = state === null && !existsSync(task.file);
      // A run that starts after this command did gets its session id now: its memory is found through it.
      if (state?.loop?.session !== undefined && state.loop.session !== sessionId) {
        sessionId = state.loop.session;
        session = await taskSession({ id: task.id, sessionId }, layout);
      }
      const ended = followEnded(gone ? null : (state?.loop?.status ?? 'queued'));
      await printer.pass(session);
      if (ended || stopped.signal.aborted) return EXIT.complete;
      if (!told && !(await daemonRuns(layout)))
        process.stderr.write(
          `no daemon runs in ${layout.root}: ${task.id} goes on once wiggum start runs it; waiting (Ctrl-C stops)\n`,
        );
      told = true;
      await abortableSleep(POLL_MS, stopped.signal);
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

async function daemonRuns(layout: VaultLayout): Promise<boolean> {
  const owner = await readLockOwner(layout.lockFile).catch(() => null);
  return owner !== null && isLockOwnerAlive(owner);
}

/** Prints each log once, in order, and what the newest one gained since the last pass. */
class LogPrinter {
  private readonly seen = new Set<string>();
  private open: GrowingLog | null = null;
  private history: IterationRecord[] = [];
  printedAny = false;

  constructor(
    private readonly layout: VaultLayout,
    private readonly config: WiggumConfig,
    private readonly raw: boolean,
    private readonly current: string | null,
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
    if (this.raw) process.stderr.write(header);
    else await this.write(header);
    this.seen.add(log.path);
    this.printedAny = true;
    this.open = new GrowingLog(log.path, this.raw ? null : driverOfHarness(harness, this.config).createReader());
  }

  private async write(text: string): Promise<void> {
    if (text === '' || process.stdout.destroyed) return;
    if (!process.stdout.write(text)) await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
  }
}
