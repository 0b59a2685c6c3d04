import type { WiggumConfig } from '../config/config.js';
import type { PictureTask } from '../daemon/picture.js';
import { inspectVault } from '../daemon/view.js';
import { spentOf } from '../memory/spent.js';
import { readTaskState } from '../task/state.js';
import type { VaultLayout } from '../vault/layout.js';
import { abortableSleep } from './abortable-sleep.js';
import { EXIT } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { lastEventLine } from './last-event.js';
import { readTail } from '../store/file-tail.js';
import { openVault } from './open-vault.js';
import type { VaultOptions } from './open-vault.js';
import { driverOfHarness, harnessOfLog, listLogs } from '../inspect/task-logs.js';
import { sessionHistory, taskSession } from '../inspect/task-session.js';
import { renderFrame } from './watch-frame.js';
import type { WatchSnapshot, WatchedTask } from './watch-frame.js';

/** How often a frame is drawn. */
const FRAME_MS = 1000;
/** How much of a log's end is read for its last event. */
const TAIL_BYTES = 64 * 1024;
/** Tasks looked into per frame (their sessions, their logs); the rest are listed from the status alone. */
const DETAILED_TASKS = 50;

const CLEAR = '\x1b[H\x1b[2J';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

/**
 * `wiggum status --watch` and `wiggum top`: a view of the whole vault, drawn again every second.
 * On a terminal each frame replaces the last; through a pipe the frames follow one another,
 * separated by a blank line. Ctrl-C (or SIGTERM) ends it with exit 0.
 */
export async function watchCommand(options: VaultOptions): Promise<ExitCode> {
  const { config, layout } = await openVault(options);
  const tty = process.stdout.isTTY === true;
  const stopped = new AbortController();
  const stop = (): void => stopped.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.on('error', stop);
  if (tty) process.stdout.write(HIDE_CURSOR);
  try {
    for (let first = true; !stopped.signal.aborted; first = false) {
      const frame = renderFrame(
        await collectSnapshot(layout, config, Date.now()),
        tty ? process.stdout.columns : undefined,
      );
      if (stopped.signal.aborted) break;
      process.stdout.write(tty ? `${CLEAR}${frame}` : `${first ? '' : '\n'}${frame}`);
      await abortableSleep(FRAME_MS, stopped.signal);
    }
  } finally {
    if (tty) process.stdout.write(SHOW_CURSOR);
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  return EXIT.complete;
}

/** The vault as one frame shows it: the picture (`status`'s), and the session of each task at work. */
export async function collectSnapshot(
  layout: VaultLayout,
  config: WiggumConfig,
  nowMs: number,
): Promise<WatchSnapshot> {
  const view = await inspectVault(layout, nowMs, config.harness.defaultName);
  let detailed = 0;
  const tasks = await Promise.all(
    view.tasks.map((task) =>
      task.run !== undefined && detailed++ < DETAILED_TASKS
        ? watchedTask(task, layout, config)
        : Promise.resolve(plain(task)),
    ),
  );
  return { vault: layout.root, nowMs, daemon: view.daemon, counts: view.counts, held: view.held, tasks };
}

function plain(task: PictureTask): WatchedTask {
  return { task, spent: null, lastEvent: null };
}

async function watchedTask(task: PictureTask, layout: VaultLayout, config: WiggumConfig): Promise<WatchedTask> {
  if (task.state === 'queued' || task.state === 'stopped') return plain(task);
  const state = await readTaskState(task.file).catch(() => null);
  const session = await taskSession({ id: task.id, sessionId: state?.loop?.session }, layout);
  const history = await sessionHistory(session);
  const spent = spentOf(history);
  const logs = session.own ? await listLogs(session.paths.logs) : [];
  let lastEvent: string | null = null;
  // The newest log first; one that shows nothing yet (the agent just started) gives way to the one before.
  for (const log of logs.slice(-2).reverse()) {
    const reader = driverOfHarness(harnessOfLog(log, history, task.run?.harness ?? null), config).createReader();
    const tail = await readTail(log.path, TAIL_BYTES);
    reader.push(tail, 'stdout');
    lastEvent = lastEventLine(reader.display(tail, 'stdout'));
    if (lastEvent !== null) break;
  }
  return {
    task,
    spent: { inputTokens: spent.inputTokens, outputTokens: spent.outputTokens, costUsd: spent.costUsd },
    lastEvent,
  };
}
