import type { NotifierDefinition } from '../config/notifier.js';
import { toError } from '../errors.js';
import { runCaptured } from '../harness/run-captured.js';
import type { OutboxEntry } from './outbox.js';
import { SIGNATURE_HEADER, signBody, standardHeaders } from './signature.js';

export type DeliveryResult = { ok: true } | { ok: false; error: string };

export interface DeliveryContext {
  /** The daemon's environment: a webhook's secret is read from it, a command runs with it. */
  env: NodeJS.ProcessEnv;
  /** A command notifier runs here (the vault). */
  cwd: string;
  /** Aborted when the daemon stops: a delivery under way ends, and its entry stays for the next start. */
  signal: AbortSignal;
  /** Now, by the daemon's clock: each attempt is signed with its own timestamp. */
  nowMs: number;
}

/** One attempt to deliver `entry`; never throws, and no error it returns holds a webhook's URL. */
export async function deliver(
  notifier: NotifierDefinition,
  entry: OutboxEntry,
  context: DeliveryContext,
): Promise<DeliveryResult> {
  return notifier.kind === 'webhook' ? postWebhook(notifier, entry, context) : runCommand(notifier, entry, context);
}

/** The message for a webhook whose secret is not in the environment: at start, in validate and per attempt. */
export function secretMissingText(variable: string): string {
  return `the environment variable ${variable} (secret_env) is not set, so deliveries cannot be signed: set it where wiggum start runs and restart it`;
}

async function postWebhook(
  notifier: Extract<NotifierDefinition, { kind: 'webhook' }>,
  entry: OutboxEntry,
  context: DeliveryContext,
): Promise<DeliveryResult> {
  const secret = context.env[notifier.secretEnv];
  if (secret === undefined || secret === '') return { ok: false, error: secretMissingText(notifier.secretEnv) };
  const timeout = AbortSignal.timeout(notifier.timeoutMs);
  try {
    const response = await fetch(notifier.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'wiggum',
        [SIGNATURE_HEADER]: signBody(secret, entry.body),
        ...standardHeaders(secret, entry.id, context.nowMs, entry.body),
        'X-Wiggum-Event': entry.event,
        'X-Wiggum-Event-Id': entry.id,
      },
      body: entry.body,
      // A redirect could lead anywhere, http:// included: it is an answer, not a delivery.
      redirect: 'manual',
      signal: AbortSignal.any([context.signal, timeout]),
    });
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true };
    return { ok: false, error: `the receiver answered HTTP ${response.status}` };
  } catch (error) {
    if (timeout.aborted) return { ok: false, error: `no answer within ${Math.round(notifier.timeoutMs / 1000)}s` };
    if (context.signal.aborted) return { ok: false, error: 'the daemon stopped during the delivery' };
    return { ok: false, error: networkError(error) };
  }
}

/** fetch's error, by the system code of its cause (ECONNREFUSED…): its messages may hold the URL. */
function networkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : null;
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    ETIMEDOUT: 'connection timed out',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
  };
  if (code === null) return 'the request failed';
  return `${words[code] ?? 'the request failed'} (${code})`;
}

async function runCommand(
  notifier: Extract<NotifierDefinition, { kind: 'command' }>,
  entry: OutboxEntry,
  context: DeliveryContext,
): Promise<DeliveryResult> {
  try {
    const result = await runCaptured(notifier.command, notifier.args, {
      cwd: context.cwd,
      env: { ...context.env, ...notifier.env, WIGGUM_EVENT: entry.event, WIGGUM_EVENT_ID: entry.id },
      timeoutMs: notifier.timeoutMs,
      maxBuffer: 1024 * 1024,
      input: entry.body,
    });
    if (result.exitCode === 0) return { ok: true };
    const said = result.stderr.trim().split('\n').slice(-1)[0]?.slice(0, 200) ?? '';
    const how =
      result.signal === null
        ? `exited with code ${String(result.exitCode)}`
        : `was killed (${result.signal}${result.signal === 'SIGKILL' ? `; its timeout is ${Math.round(notifier.timeoutMs / 1000)}s` : ''})`;
    return { ok: false, error: `${notifier.command} ${how}${said === '' ? '' : `: ${said}`}` };
  } catch (error) {
    return { ok: false, error: toError(error).message };
  }
}
