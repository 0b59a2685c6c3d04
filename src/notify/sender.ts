import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { NotifierDefinition } from '../config/notifier.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../time/clock.js';
import { deliveryDelayMs } from './backoff.js';
import { deliver, secretMissingText } from './deliver.js';
import type { DeliveryResult } from './deliver.js';
import { eventDocument } from './event-doc.js';
import type { NotifyInput } from './event-doc.js';
import { FRESH_HEALTH, afterAttempt, isFailing } from './health.js';
import type { NotifierHealth } from './health.js';
import { backlogOverflow, readOutbox, removeEntry, writeEntry, writeEntrySync } from './outbox.js';
import type { OutboxEntry } from './outbox.js';
import { plural } from '../plural.js';

/** A notifier as `wiggum status` and the Dashboard show it. */
export interface NotifierStatus {
  label: string;
  kind: NotifierDefinition['kind'];
  events: string[];
  /** Events waiting in the outbox for it. */
  pending: number;
  /** Failed several times in a row (FAILING_AFTER), until a delivery succeeds. */
  failing: boolean;
  failures: number;
  lastError: string | null;
  lastErrorAtMs: number | null;
  lastOkAtMs: number | null;
}

export interface SenderOptions {
  /** `.wiggum/outbox/`. */
  dir: string;
  vault: string;
  notifiers: readonly NotifierDefinition[];
  clock: Clock;
  random: () => number;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** Called whenever what {@link NotifySender.snapshot} says may have changed. */
  onChange: () => void;
  newId?: () => string;
}

interface Lane {
  notifier: NotifierDefinition;
  entries: OutboxEntry[];
  health: NotifierHealth;
  /** The attempt after a failure waits until then (the whole notifier backs off, not one event). */
  nextAtMs: number;
  /** The failed attempts of the entry at the head, for the log. */
  headAttempts: number;
  loop: Promise<void> | null;
}

export const OUTBOX_DIR = 'outbox';

export function outboxDir(stateDir: string): string {
  return join(stateDir, OUTBOX_DIR);
}

/**
 * The daemon's background sender: each event is written to the outbox before anything is sent, so
 * a task's ending never waits on a network or a script; each notifier then takes its events one at
 * a time, oldest first, and backs off as a whole while it fails. What a restart finds in the outbox
 * is sent first.
 */
export class NotifySender {
  private readonly lanes = new Map<string, Lane>();
  private readonly writes = new Set<Promise<void>>();
  /** Aborted by close(): sleeps end, a delivery under way is cut, its entry stays for the next start. */
  private readonly stopping = new AbortController();
  private closing = false;
  private readonly newId: () => string;

  constructor(private readonly options: SenderOptions) {
    this.newId = options.newId ?? randomUUID;
    for (const notifier of options.notifiers)
      this.lanes.set(notifier.key, {
        notifier,
        entries: [],
        health: { ...FRESH_HEALTH },
        nextAtMs: 0,
        headAttempts: 0,
        loop: null,
      });
  }

  /** Reads what an earlier daemon left in the outbox and starts sending it; says what cannot work. */
  async start(): Promise<void> {
    const { logger } = this.options;
    for (const lane of this.lanes.values()) {
      const notifier = lane.notifier;
      if (notifier.kind !== 'webhook') continue;
      const secret = this.options.env[notifier.secretEnv];
      if (secret === undefined || secret === '')
        logger.error(
          { event: 'notify.secret-missing', notifier: notifier.label, variable: notifier.secretEnv },
          `notifier ${notifier.label}: ${secretMissingText(notifier.secretEnv)}`,
        );
    }
    if (this.lanes.size === 0) return;
    const { entries, unreadable } = await readOutbox(this.options.dir);
    for (const name of unreadable) {
      logger.warn(
        { event: 'notify.dropped', why: 'unreadable', file: join(this.options.dir, name) },
        `an outbox file is not an event wiggum wrote (${name}); it is left there and not sent`,
      );
    }
    let pending = 0;
    for (const entry of entries) {
      const lane = this.lanes.get(entry.notifier);
      if (lane === undefined) {
        logger.warn(
          { event: 'notify.dropped', why: 'notifier-gone', eventId: entry.id, notifyEvent: entry.event },
          `an undelivered ${entry.event} event was for a notifier no longer in the configuration; dropped`,
        );
        await removeEntry(this.options.dir, entry).catch(() => undefined);
        continue;
      }
      lane.entries.push(entry);
      pending += 1;
    }
    if (pending > 0)
      logger.info(
        { event: 'notify.pending', pending },
        `sending ${plural(pending, 'event')} an earlier run left undelivered`,
      );
    for (const lane of this.lanes.values()) this.kick(lane);
    this.options.onChange();
  }

  /** Keeps the event for every notifier that wants it and wakes their senders; never throws, never waits on a delivery. */
  notify(input: NotifyInput): Promise<void> {
    if (this.closing && input.event !== 'daemon') return Promise.resolve();
    const lanes = [...this.lanes.values()].filter((lane) => lane.notifier.events.includes(input.event));
    if (lanes.length === 0) return Promise.resolve();
    const nowMs = this.options.clock.now();
    const id = this.newId();
    const body = JSON.stringify(eventDocument(input, id, nowMs, this.options.vault));
    const write = Promise.all(
      lanes.map((lane) =>
        this.keep(lane, { version: 1, id, notifier: lane.notifier.key, event: input.event, createdAtMs: nowMs, body }),
      ),
    ).then(() => undefined);
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
    return write;
  }

  /**
   * Keeps an event in the outbox synchronously, for the next start to send: the last thing a
   * process that is crashing does (nothing asynchronous runs after it). Never throws.
   */
  keepForNextStart(input: NotifyInput): void {
    const lanes = [...this.lanes.values()].filter((lane) => lane.notifier.events.includes(input.event));
    if (lanes.length === 0) return;
    const nowMs = this.options.clock.now();
    const id = this.newId();
    const body = JSON.stringify(eventDocument(input, id, nowMs, this.options.vault));
    for (const lane of lanes) {
      try {
        writeEntrySync(this.options.dir, {
          version: 1,
          id,
          notifier: lane.notifier.key,
          event: input.event,
          createdAtMs: nowMs,
          body,
        });
      } catch {
        // A crash is already under way; the log line about it is what remains.
      }
    }
  }

  private async keep(lane: Lane, entry: OutboxEntry): Promise<void> {
    const { logger, dir } = this.options;
    try {
      await writeEntry(dir, entry);
    } catch (error) {
      logger.error(
        {
          event: 'notify.queue-failed',
          notifier: lane.notifier.label,
          eventId: entry.id,
          notifyEvent: entry.event,
          err: error,
        },
        `could not keep a ${entry.event} event for ${lane.notifier.label} in ${dir}; it is not sent`,
      );
      return;
    }
    const over = backlogOverflow(lane.entries.length, lane.notifier.maxPending);
    // The head may be under way: the oldest after it go first.
    for (const dropped of lane.entries.splice(lane.loop === null ? 0 : 1, over)) {
      logger.warn(
        {
          event: 'notify.dropped',
          why: 'backlog',
          notifier: lane.notifier.label,
          eventId: dropped.id,
          notifyEvent: dropped.event,
        },
        `${lane.notifier.label} has ${lane.notifier.maxPending} events waiting (max_pending): the oldest, a ${dropped.event} event, is dropped`,
      );
      await removeEntry(dir, dropped).catch(() => undefined);
    }
    lane.entries.push(entry);
    logger.debug(
      { event: 'notify.queued', notifier: lane.notifier.label, eventId: entry.id, notifyEvent: entry.event },
      `kept a ${entry.event} event for ${lane.notifier.label}`,
    );
    this.kick(lane);
    this.options.onChange();
  }

  private kick(lane: Lane): void {
    if (lane.loop !== null || lane.entries.length === 0 || this.stopping.signal.aborted) return;
    lane.loop = this.drive(lane).finally(() => {
      lane.loop = null;
      // An entry that arrived as the loop was ending.
      if (!this.closing) this.kick(lane);
    });
  }

  private async drive(lane: Lane): Promise<void> {
    const { clock, logger, dir } = this.options;
    const signal = this.stopping.signal;
    while (lane.entries.length > 0 && !signal.aborted) {
      const wait = lane.nextAtMs - clock.now();
      if (wait > 0) {
        // While stopping, a notifier that is backing off is not waited for: its events stay on disk.
        if (this.closing) return;
        try {
          await clock.sleep(wait, signal);
        } catch {
          return;
        }
      }
      const entry = lane.entries[0]!;
      if (clock.now() - entry.createdAtMs > lane.notifier.retry.giveUpAfterMs) {
        lane.entries.shift();
        lane.headAttempts = 0;
        logger.warn(
          {
            event: 'notify.dropped',
            why: 'expired',
            notifier: lane.notifier.label,
            eventId: entry.id,
            notifyEvent: entry.event,
          },
          `a ${entry.event} event could not reach ${lane.notifier.label} within retry.give_up_after; dropped`,
        );
        await removeEntry(dir, entry).catch(() => undefined);
        this.options.onChange();
        continue;
      }
      const { env, vault: cwd } = this.options;
      const result: DeliveryResult = await deliver(lane.notifier, entry, { env, cwd, signal, nowMs: clock.now() });
      if (signal.aborted && !result.ok) return;
      this.record(lane, entry, result);
    }
  }

  private record(lane: Lane, entry: OutboxEntry, result: DeliveryResult): void {
    const { clock, logger, dir } = this.options;
    const label = lane.notifier.label;
    const { health, change } = afterAttempt(lane.health, result, clock.now());
    lane.health = health;
    lane.headAttempts += 1;
    const fields = { notifier: label, eventId: entry.id, notifyEvent: entry.event, attempts: lane.headAttempts };
    if (result.ok) {
      lane.entries.shift();
      lane.nextAtMs = 0;
      lane.headAttempts = 0;
      void removeEntry(dir, entry).catch((error: unknown) =>
        logger.warn(
          { event: 'notify.queue-failed', ...fields, err: error },
          `could not remove a delivered event from ${dir}; it may be sent again`,
        ),
      );
      logger.info({ event: 'notify.delivered', ...fields }, `delivered the ${entry.event} event to ${label}`);
      if (change === 'recovered')
        logger.info({ event: 'notify.recovered', notifier: label }, `notifier ${label} delivers again`);
    } else {
      const retryInMs = deliveryDelayMs(health.failures, lane.notifier.retry, this.options.random);
      lane.nextAtMs = clock.now() + retryInMs;
      logger.warn(
        { event: 'notify.failed', ...fields, error: result.error, retryInMs },
        `notifier ${label} failed to take the ${entry.event} event (${result.error}); trying again in ${Math.round(retryInMs / 100) / 10}s`,
      );
      if (change === 'failing')
        logger.error(
          {
            event: 'notify.failing',
            notifier: label,
            failures: health.failures,
            error: result.error,
            pending: lane.entries.length,
          },
          `notifier ${label} keeps failing (${health.failures} times in a row; last: ${result.error}); the outbox keeps its ${plural(lane.entries.length, 'event')}, tried again later`,
        );
    }
    this.options.onChange();
  }

  snapshot(): NotifierStatus[] {
    return [...this.lanes.values()].map((lane) => ({
      label: lane.notifier.label,
      kind: lane.notifier.kind,
      events: [...lane.notifier.events],
      pending: lane.entries.length,
      failing: isFailing(lane.health),
      failures: lane.health.failures,
      lastError: lane.health.lastError,
      lastErrorAtMs: lane.health.lastErrorAtMs,
      lastOkAtMs: lane.health.lastOkAtMs,
    }));
  }

  /**
   * Stops: the events being kept are written, what is due is sent within `graceMs` (the daemon's
   * `stopped` event among them), then whatever is under way is cut. Undelivered events stay in the
   * outbox for the next start.
   */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    await Promise.all([...this.writes]);
    const loops = [...this.lanes.values()].map((lane) => lane.loop).filter((loop) => loop !== null);
    const timeUp = new AbortController();
    await Promise.race([Promise.all(loops), this.options.clock.sleep(graceMs, timeUp.signal).catch(() => undefined)]);
    timeUp.abort();
    this.stopping.abort();
    await Promise.all(loops);
  }
}
