import { z } from 'zod';
import { checkWebhookUrl } from './webhook-url.js';
import { duration } from './duration.js';

/** What a notifier may be told about (`events:` of a notifier under `notify:`). */
export const NOTIFY_EVENTS = ['done', 'rejected', 'blocked', 'review', 'waiting', 'stalled', 'daemon'] as const;
export type NotifyEventName = (typeof NOTIFY_EVENTS)[number];

const variableName = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? 'missing: name the environment variable that holds the webhook secret (secret_env: WIGGUM_WEBHOOK_SECRET)'
        : 'the name of an environment variable, such as WIGGUM_WEBHOOK_SECRET',
  })
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    message: 'the name of an environment variable, such as WIGGUM_WEBHOOK_SECRET',
  });

const events = z
  .array(z.enum(NOTIFY_EVENTS, { message: `an event is one of ${NOTIFY_EVENTS.join(', ')}` }))
  .min(1, { message: `name at least one event: ${NOTIFY_EVENTS.join(', ')}` });

/**
 * How a delivery that failed is tried again: exponential backoff from `base_delay` up to
 * `max_delay`, with jitter, until `give_up_after` has passed since the event (then it is dropped,
 * and the log says so). Prefaults, not defaults: each goes through `duration` as if written.
 */
const retry = z
  .strictObject({
    base_delay: duration.prefault('1s'),
    max_delay: duration.prefault('5m'),
    give_up_after: duration.prefault('24h'),
  })
  .prefault({});

const common = {
  events,
  retry,
  // Events kept on disk for this notifier while it fails; past it the oldest are dropped.
  max_pending: z.int().min(1).max(100_000).default(1000),
};

const webhook = z.strictObject({
  kind: z.literal('webhook'),
  url: z.string().transform((text, ctx) => {
    const checked = checkWebhookUrl(text);
    if (!checked.ok) {
      ctx.addIssue({ code: 'custom', message: checked.message });
      return z.NEVER;
    }
    return checked.url.href;
  }),
  secret_env: variableName,
  timeout: duration.prefault('10s'),
  ...common,
});

const command = z.strictObject({
  kind: z.literal('command'),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'not a valid variable name' }), z.string())
    .default({}),
  timeout: duration.prefault('30s'),
  ...common,
});

/** `notify:`: the notifiers, in order (null or absent: none). */
export const notifyListSchema = z
  .array(z.discriminatedUnion('kind', [webhook, command], { message: 'kind is webhook or command' }))
  .nullable()
  .transform((value) => value ?? []);

export type RawNotifier = z.output<typeof notifyListSchema>[number];
