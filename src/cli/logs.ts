import type { VaultLayout } from '../vault/layout.js';
import { taskPicture } from '../daemon/view.js';
import { isLockOwnerAlive, readLockOwner } from '../lock/owner-lock.js';
import { FOLLOW_POLL_MS, LogPrinter, followTaskLogs, printTaskLogs } from '../inspect/log-follow.js';
import type { LogSink } from '../inspect/log-follow.js';
import { findTaskFile, parsedTask } from '../vault/find-task.js';
import { abortableSleep } from './abortable-sleep.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';

export interface LogsOptions extends VaultOptions {
  follow?: boolean;
  raw?: boolean;
}

/**
 * `wiggum logs ID [--follow] [--raw]`: every iteration's harness log, in order, rendered as `run`
 * shows it live (or raw). With --follow it keeps reading the newest log as it grows and goes on
 * into the next iteration's, until the task is no longer running.
 */
export async function logsCommand(ref: string, options: LogsOptions): Promise<ExitCode> {
  const { config, layout } = await openVault(options);
  const task = parsedTask(await findTaskFile(ref, layout), layout.root);
  const current =
    (await taskPicture(layout, task.file)).run?.harness ?? task.frontmatter.harness ?? config.harness.defaultName;
  const printer = new LogPrinter(layout, config, options.raw === true, current ?? null, stdoutSink);
  const stopped = new AbortController();
  const stop = (): void => stopped.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.on('error', stop); // a closed pipe (`| head`): nothing more to show
  const found = { id: task.id, file: task.file, sessionId: task.frontmatter.persistence_loop?.session };
  try {
    if (options.follow !== true) {
      await printTaskLogs(layout, found, printer);
      if (!printer.printedAny)
        process.stderr.write(
          `${task.id} has no harness log yet: no iteration has started (wiggum logs ${task.id} --follow waits for it)\n`,
        );
      return EXIT.complete;
    }
    let told = false;
    await followTaskLogs(layout, {
      task: found,
      printer,
      pause: async () => {
        if (stopped.signal.aborted) return false;
        await abortableSleep(FOLLOW_POLL_MS, stopped.signal);
        return !stopped.signal.aborted;
      },
      afterPass: async () => {
        if (!told && !(await daemonRuns(layout)))
          process.stderr.write(
            `no daemon runs in ${layout.root}: ${task.id} goes on once wiggum start runs it; waiting (Ctrl-C stops)\n`,
          );
        told = true;
      },
    });
    return EXIT.complete;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

const stdoutSink: LogSink = {
  async output(text) {
    if (process.stdout.destroyed) return;
    if (!process.stdout.write(text)) await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
  },
  header(text) {
    process.stderr.write(text);
    return Promise.resolve();
  },
};

async function daemonRuns(layout: VaultLayout): Promise<boolean> {
  const owner = await readLockOwner(layout.lockFile).catch(() => null);
  return owner !== null && isLockOwnerAlive(owner);
}
