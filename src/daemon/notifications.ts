import { readFile } from 'node:fs/promises';
import { basename, extname, relative } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { LoopEvent, TaskRunResult } from '../loop/events.js';
import { titleOf } from '../notify/event-doc.js';
import type { EventTask, NotifyInput } from '../notify/event-doc.js';
import { NO_STALL, eventOfEnding, stallStep, stallThreshold, usageLimitStep } from '../notify/event-map.js';
import type { StallState } from '../notify/event-map.js';
import { NotifySender, outboxDir } from '../notify/sender.js';
import type { NotifierStatus } from '../notify/sender.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';

/** How long a stopping daemon gives its notifiers to take what is due (its own `stopped` event among them). */
const STOP_GRACE_MS = 5_000;

/**
 * What the daemon tells its notifiers: a task's ending (done, rejected, and blocked or review when
 * the loop ends so), a usage-limit wait, a stall, and its own start and stop. Every call returns at
 * once: the sender keeps the event on disk and delivers it in the background.
 */
export class DaemonNotifications {
  private readonly sender: NotifySender;
  private readonly usageWaits = new Set<string>();
  private readonly stalls = new Map<string, StallState>();

  constructor(
    private readonly config: WiggumConfig,
    private readonly layout: VaultLayout,
    clock: Clock,
    random: () => number,
    private readonly logger: Logger,
    env: NodeJS.ProcessEnv,
    onChange: () => void,
  ) {
    this.sender = new NotifySender({
      dir: outboxDir(layout.state),
      vault: layout.root,
      notifiers: config.notify,
      clock,
      random,
      logger,
      env,
      onChange,
    });
  }

  get configured(): boolean {
    return this.config.notify.length > 0;
  }

  snapshot(): NotifierStatus[] {
    return this.sender.snapshot();
  }

  /** Sends what an earlier daemon left pending, then says the daemon started. */
  async started(): Promise<void> {
    if (!this.configured) return;
    try {
      await this.sender.start();
    } catch (error) {
      this.logger.error(
        { event: 'notify.queue-failed', err: error },
        `could not read the outbox (${outboxDir(this.layout.state)}); events an earlier run left are not sent now`,
      );
    }
    this.send({ event: 'daemon', task: null, details: { daemon: { state: 'started', pid: process.pid } } });
  }

  /** Says the daemon stops (or failed to stop cleanly), then gives the notifiers a short grace. */
  async stopping(failedParts: readonly string[] = []): Promise<void> {
    if (!this.configured) return;
    this.send({
      event: 'daemon',
      task: null,
      details: {
        daemon:
          failedParts.length === 0
            ? { state: 'stopped', pid: process.pid }
            : { state: 'failed', pid: process.pid, reason: `could not release ${failedParts.join(', ')}` },
      },
    });
    await this.sender.close(Math.min(STOP_GRACE_MS, this.config.daemon.drainGraceMs));
  }

  /**
   * The process is crashing: the `daemon` event (`failed`, with the error's message) is kept in
   * the outbox for the next start to send, since nothing asynchronous runs any more.
   */
  crashed(error: unknown): void {
    if (!this.configured) return;
    const reason = error instanceof Error ? error.message : String(error);
    this.sender.keepForNextStart({
      event: 'daemon',
      task: null,
      details: { daemon: { state: 'failed', pid: process.pid, reason: `crashed: ${reason.slice(0, 500)}` } },
    });
  }

  /** A task's run ended: done, rejected, blocked or review are told; stopped and interrupted are not endings. */
  ended(result: TaskRunResult, name: string): void {
    if (result.taskId !== null) {
      this.usageWaits.delete(result.taskId);
      this.stalls.delete(result.taskId);
    }
    // A complete task that went to Review/ is done as far as its loop goes: its event is `review`.
    const event = eventOfEnding(result);
    if (event === null || !this.configured) return;
    void this.taskOf(result.taskId, result.file, name).then((task) =>
      this.send({
        event,
        task,
        details: {
          iterations: result.iterations,
          ...(result.reason === undefined ? {} : { reason: result.reason }),
          ...(result.code === undefined ? {} : { code: result.code }),
          // The report (completion summary, question, rejection reason) is in the file itself.
          report: result.file,
        },
      }),
    );
  }

  /** The loop's events: the first wait of a usage limit, and a task that shows no progress for a while. */
  loopEvent(event: LoopEvent, name: string, file: string): void {
    if (!this.configured || event.taskId === null) return;
    const id = event.taskId;
    if (event.type === 'waiting') {
      const step = usageLimitStep(this.usageWaits.has(id), event.why);
      if (step.waiting) this.usageWaits.add(id);
      else this.usageWaits.delete(id);
      if (step.notify)
        void this.taskOf(id, file, name).then((task) =>
          this.send({
            event: 'waiting',
            task,
            details: {
              reason: 'usage-limit',
              ...(event.harness === undefined ? {} : { harness: event.harness }),
              ...(Number.isFinite(event.untilMs) ? { until: new Date(event.untilMs).toISOString() } : {}),
            },
          }),
        );
    } else if (event.type === 'iteration') {
      this.usageWaits.delete(id);
    } else if (event.type === 'iteration-end') {
      const step = stallStep(
        this.stalls.get(id) ?? NO_STALL,
        event.record,
        stallThreshold(this.config.loop.noProgressLimit),
      );
      this.stalls.set(id, step.state);
      if (step.notify)
        void this.taskOf(id, file, name).then((task) =>
          this.send({
            event: 'stalled',
            task,
            details: {
              reason: `${step.state.streak} iterations in a row with no story passing, commit or changed file`,
              iteration: event.record.iteration,
              noProgressLimit: this.config.loop.noProgressLimit,
            },
          }),
        );
    }
  }

  private send(input: NotifyInput): void {
    // notify() logs its own failures; nothing here may reach a task's run.
    void this.sender.notify(input).catch(() => undefined);
  }

  private async taskOf(id: string | null, file: string, name: string): Promise<EventTask> {
    const fallback = basename(name, extname(name));
    const text = await readFile(file, 'utf8').catch(() => '');
    return { id, file: relative(this.layout.root, file), title: titleOf(text, fallback) };
  }
}
