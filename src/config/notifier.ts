import { createHash } from 'node:crypto';
import type { NotifyEventName, RawNotifier } from './notify-schema.js';
import { redactUrl } from './webhook-url.js';

/** What every notifier has, whatever its kind. */
interface NotifierCommon {
  /**
   * Stable over restarts while the notifier's kind and target stay (`n1-3fa09c2e`): the outbox's
   * entries name it, so that an entry pending for a notifier since removed is not sent elsewhere.
   */
  key: string;
  /** How logs, status and the Dashboard name it: never a webhook's path or query. */
  label: string;
  events: NotifyEventName[];
  timeoutMs: number;
  retry: { baseDelayMs: number; maxDelayMs: number; giveUpAfterMs: number };
  maxPending: number;
}

export type NotifierDefinition = NotifierCommon &
  (
    | { kind: 'webhook'; url: string; secretEnv: string }
    | { kind: 'command'; command: string; args: string[]; env: Record<string, string> }
  );

export function compileNotifier(raw: RawNotifier, index: number): NotifierDefinition {
  const target = raw.kind === 'webhook' ? raw.url : [raw.command, ...raw.args].join('\u0000');
  const common: NotifierCommon = {
    key: `n${index + 1}-${createHash('sha256').update(`${raw.kind}\u0000${target}`).digest('hex').slice(0, 8)}`,
    label: raw.kind === 'webhook' ? `webhook ${redactUrl(raw.url)}` : `command ${raw.command}`,
    events: [...new Set(raw.events)],
    timeoutMs: raw.timeout,
    retry: {
      baseDelayMs: raw.retry.base_delay,
      maxDelayMs: raw.retry.max_delay,
      giveUpAfterMs: raw.retry.give_up_after,
    },
    maxPending: raw.max_pending,
  };
  return raw.kind === 'webhook'
    ? { ...common, kind: 'webhook', url: raw.url, secretEnv: raw.secret_env }
    : { ...common, kind: 'command', command: raw.command, args: raw.args, env: raw.env };
}
