import type { AgentError, AgentEvent } from './agent-event.js';
import { usageFacts } from './agent-event.js';
import { messageEvents, resultFacts, resultText, usageOf } from './claude-events.js';
import type { HarnessDriver, OutputReader } from './driver.js';
import { lastLine } from './driver.js';
import type { AgentFacts } from './failure-text.js';
import { authMessage, billingMessage, contextMessage, usageLimit } from './failure-text.js';
import type { JsonEvent } from './json-events.js';
import { num, record, str } from './json-events.js';
import type { AgentStreamParser, FinishedRun } from './json-lines-reader.js';
import { jsonLinesReader } from './json-lines-reader.js';

/**
 * Claude Code (`claude -p --verbose --output-format stream-json`). The final `result` event carries
 * the final message (the only place the completion promise is looked for), the session id, tokens
 * and cost; failures are classified from what Claude Code itself reports: the `api_error_status`
 * and `api_error_type` of the result, the `error` kind of its synthetic assistant message, a
 * `rate_limit_event` that says a usage limit was hit and when it resets, and, when there is no
 * result event at all, the text it printed (plain `--output-format text`, or stderr).
 * Claude Code retries a refused key for about 3 minutes; its first `api_retry` line that says
 * `authentication_failed` ends the run at once.
 */
export const CLAUDE_AGENT: AgentFacts = {
  name: 'Claude Code',
  authFix:
    'set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) in the harness environment, or run claude login as the user wiggum runs as',
};

export const claudeDriver: HarnessDriver = {
  kind: 'claude',
  installHint: 'install it with npm i -g @anthropic-ai/claude-code',
  createReader: () => claudeReader(),
};

/** A reader of Claude Code's stream JSON; `maxLineBytes` lowers the line limit (for tests). */
export function claudeReader(maxLineBytes?: number): OutputReader {
  return jsonLinesReader(new ClaudeParser(), maxLineBytes);
}

/** What Claude Code said about a failed API call. */
interface ApiError {
  status: number | null;
  type: string | null;
  /** The `error` kind of the assistant message (authentication_failed, rate_limit, billing_error, …). */
  kind: string | null;
  text: string;
}

const AUTH_KINDS = new Set([
  'authentication_failed',
  'oauth_org_not_allowed',
  'account_on_hold',
  'verification_required',
  'cloud_credential_error',
]);

class ClaudeParser implements AgentStreamParser {
  readonly agent = CLAUDE_AGENT.name;
  private sawResult = false;
  private assistantError: JsonEvent | null = null;
  /** Set while Claude Code's last rate_limit_event said "rejected": the reset (epoch ms), or null if it gave none. */
  private usageLimitResetMs: number | null | undefined = undefined;

  event(event: JsonEvent): AgentEvent[] {
    const type = str(event['type']);
    const session: AgentEvent[] = type === 'system' || type === 'result' ? [] : sessionOf(event);
    switch (type) {
      case 'system':
        return this.system(event);
      case 'assistant':
        if (str(event['error']) !== null) this.assistantError = event;
        return [...session, ...messageEvents(event)];
      case 'user':
        return [...session, ...messageEvents(event)];
      case 'rate_limit_event':
        return [...session, ...this.rateLimit(event)];
      case 'result':
        return this.result(event);
      case null:
      default:
        return session;
    }
  }

  private system(event: JsonEvent): AgentEvent[] {
    const subtype = str(event['subtype']);
    if (subtype === 'init')
      return [
        {
          type: 'session',
          sessionId: str(event['session_id']),
          model: str(event['model']),
          version: str(event['claude_code_version']),
        },
      ];
    if (subtype !== 'api_retry') return sessionOf(event);
    const status = num(event['error_status']);
    const kind = str(event['error']);
    const delay = num(event['retry_delay_ms']);
    const notice: AgentEvent = {
      type: 'notice',
      text: `⟳ API error ${String(status ?? kind ?? '')} (${kind ?? 'error'}): Claude Code retries (${num(event['attempt']) ?? '?'}/${num(event['max_retries']) ?? '?'})${delay === null ? '' : ` in ${(delay / 1000).toFixed(1)} s`}`,
    };
    if (!(kind !== null && AUTH_KINDS.has(kind)) && status !== 401) return [...sessionOf(event), notice];
    return [
      ...sessionOf(event),
      notice,
      {
        type: 'error',
        said: '',
        stopNow: true,
        kind: 'auth',
        message: authMessage(
          CLAUDE_AGENT,
          `the API answered ${status ?? ''} ${kind ?? ''}`.replace(/\s+/g, ' ').trim(),
        ),
      },
    ];
  }

  private rateLimit(event: JsonEvent): AgentEvent[] {
    const info = record(event['rate_limit_info']);
    const resetsAt = num(info['resetsAt']);
    this.usageLimitResetMs = info['status'] !== 'rejected' ? undefined : resetsAt === null ? null : resetsAt * 1000;
    if (info['status'] !== 'rejected') return [];
    return [
      {
        type: 'notice',
        text: `⏸ usage limit reached (${str(info['rateLimitType']) ?? 'limit'})${resetsAt === null ? '' : `, resets at ${new Date(resetsAt * 1000).toISOString()}`}`,
      },
    ];
  }

  private result(event: JsonEvent): AgentEvent[] {
    this.sawResult = true;
    const events: AgentEvent[] = [{ type: 'session', sessionId: str(event['session_id']) }];
    const usage = usageOf(event['usage'], num(event['total_cost_usd']));
    if (usage !== null) events.push({ type: 'usage', usage, total: true });
    const failed = event['is_error'] === true;
    // subtype says "success" even for an API error; terminal_reason (api_error, max_turns, …) says what happened.
    const reason = failed ? [str(event['terminal_reason']) ?? str(event['subtype']) ?? 'error'] : [];
    const said = resultText(event);
    events.push({ type: 'final_message', text: failed ? '' : (str(event['result']) ?? '') });
    events.push({
      type: 'finished',
      ok: !failed,
      agent: CLAUDE_AGENT.name,
      facts: [...reason, ...resultFacts(event), ...usageFacts(usage)],
      said: failed ? said : '',
    });
    if (!failed) return events;
    const assistant = this.assistantError;
    const error = classifyApiError(
      {
        status: num(event['api_error_status']) ?? num(assistant?.['api_error_status']),
        type: str(event['api_error_type']) ?? str(assistant?.['api_error_type']),
        kind: str(assistant?.['error']),
        text: said,
      },
      this.usageLimitResetMs,
    ) ?? {
      kind: 'other',
      message: `${CLAUDE_AGENT.name} ended with an error: ${said === '' ? reason.join('') : said}`,
    };
    return [...events, { type: 'error', said: '', ...error }];
  }

  finish({ result, sawJson, reported }: FinishedRun): AgentEvent[] {
    if (this.sawResult || reported !== null || result.exitCode === 0 || result.exitCode === null) return [];
    // No result event: whatever Claude Code printed last (plain text output, or a refusal on stderr).
    const said = lastLine(result.stderrTail) || (sawJson ? '' : lastLine(result.stdoutTail));
    if (said === '') return [];
    const error =
      classifyStartup(said) ??
      classifyApiError({ status: null, type: null, kind: null, text: said }, this.usageLimitResetMs);
    return error === null ? [] : [{ type: 'error', said: '', ...error }];
  }
}

function sessionOf(event: JsonEvent): AgentEvent[] {
  const id = str(event['session_id']);
  return id === null ? [] : [{ type: 'session', sessionId: id }];
}

/** Claude Code's own refusals to start, which no retry can fix. */
function classifyStartup(text: string): AgentError | null {
  if (/cannot be used with root\/sudo privileges/i.test(text)) {
    return {
      kind: 'fatal',
      message: `Claude Code refused to run: ${text}. Run wiggum as a normal user, or, inside a container or sandbox, set IS_SANDBOX: "1" in the harness's env (or drop --permission-mode bypassPermissions from its args)`,
    };
  }
  return null;
}

/**
 * Sorts a failed run by what Claude Code said, in the words of version 2.1.x: its result text for
 * an API error is e.g. "API Error: Request rejected (429) · …", "API Error: 529 Overloaded. …",
 * "Invalid API key · Fix external API key", "Not logged in · Please run /login",
 * "API Error: Connection refused … (ECONNREFUSED)", "You've hit your 5-hour limit · resets 7:53pm",
 * "Prompt is too long". Older versions printed "Claude AI usage limit reached|<epoch seconds>".
 * Null: an ordinary failure.
 */
export function classifyApiError(error: ApiError, usageLimitResetMs: number | null | undefined): AgentError | null {
  const { status, type, kind, text } = error;
  const said = text.trim() === '' ? `API error ${status ?? ''}`.trim() : text.trim();
  const legacy = /usage limit reached\|(\d{9,13})/i.exec(text);
  const rateLimited = status === 429 || type === 'rate_limit_error' || kind === 'rate_limit';
  if (
    legacy !== null ||
    (rateLimited && usageLimitResetMs !== undefined) ||
    /you've hit your .*limit|usage limit reached/i.test(text)
  ) {
    const epoch = legacy?.[1] === undefined ? null : Number(legacy[1]);
    const resetAtMs = epoch !== null ? (epoch < 1e12 ? epoch * 1000 : epoch) : (usageLimitResetMs ?? null);
    return usageLimit(CLAUDE_AGENT, said.replace(/\|\d+$/, ''), resetAtMs);
  }
  if (rateLimited || /request rejected \(429\)|rate.?limit/i.test(text))
    return { kind: 'rate_limit', message: `the API rate limit was hit (429): ${said}` };
  if (status === 529 || type === 'overloaded_error' || kind === 'overloaded' || /\b529\b|overloaded/i.test(text))
    return { kind: 'overloaded', message: `the API is overloaded (529): ${said}` };
  if (kind === 'billing_error' || /credit balance is too low/i.test(text))
    return { kind: 'billing', message: billingMessage(CLAUDE_AGENT, said) };
  if (
    (kind !== null && AUTH_KINDS.has(kind)) ||
    status === 401 ||
    status === 403 ||
    type === 'authentication_error' ||
    type === 'permission_error' ||
    /invalid api key|please run \/login|not logged in|failed to authenticate|authentication_error|oauth token (?:has )?(?:expired|been revoked)/i.test(
      text,
    )
  ) {
    return { kind: 'auth', message: authMessage(CLAUDE_AGENT, said) };
  }
  if (/prompt is too long|context.{0,20}(?:limit|window)|exceeds? the (?:context|maximum)/i.test(text))
    return { kind: 'context_too_long', message: contextMessage(CLAUDE_AGENT, said) };
  if (kind === 'model_not_found' || (status === 404 && type === 'not_found_error'))
    return { kind: 'fatal', message: `the model is not available: ${said}; check --model in the harness's args` };
  if (
    status === null &&
    (kind === 'server_error' ||
      /\b(?:ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EPIPE|EHOSTUNREACH|ENETUNREACH)\b|connection (?:refused|dropped|error|reset)|unable to connect|socket hang up|fetch failed|request timed out/i.test(
        text,
      ))
  ) {
    return { kind: 'network', message: `the API could not be reached: ${said}` };
  }
  if ((status !== null && status >= 500) || /API Error: 5\d\d\b/.test(text))
    return { kind: 'overloaded', message: `the API had a server error: ${said}` };
  return null;
}
