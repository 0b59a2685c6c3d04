import { inputTokens, renderEvent } from './claude-events.js';
import type { JsonEvent } from './json-events.js';
import { num, record, str } from './json-events.js';
import type { AgentReport, HarnessDriver, HarnessFailure, OutputReader } from './driver.js';
import { lastLine } from './driver.js';
import type { FinishedRun, JsonEventHandler } from './json-lines-reader.js';
import { finalMessageOf, jsonLinesReader } from './json-lines-reader.js';

/**
 * Claude Code (`claude -p --verbose --output-format stream-json`). The final `result` event carries
 * the final message (the only place the completion promise is looked for), the session id, tokens
 * and cost; failures are classified from what Claude Code itself reports: the `api_error_status`
 * and `api_error_type` of the result, the `error` kind of its synthetic assistant message, a
 * `rate_limit_event` that says a usage limit was hit and when it resets, and, when there is no
 * result event at all, the text it printed (plain `--output-format text`, or stderr).
 */
export const claudeDriver: HarnessDriver = {
  kind: 'claude',
  installHint: 'install it with npm i -g @anthropic-ai/claude-code',
  createReader: () => claudeReader(),
};

/** A reader of Claude Code's stream JSON; `maxLineBytes` lowers the line limit (for tests). */
export function claudeReader(maxLineBytes?: number): OutputReader {
  return jsonLinesReader(new ClaudeEvents(), maxLineBytes);
}

/** What Claude Code said about a failed API call. */
interface ApiError {
  status: number | null;
  type: string | null;
  /** The `error` kind of the assistant message (authentication_failed, rate_limit, billing_error, …). */
  kind: string | null;
  text: string;
}

const AUTH_FIX = 'set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) in the harness environment, or run claude login as the user wiggum runs as';
const AUTH_KINDS = new Set(['authentication_failed', 'oauth_org_not_allowed', 'account_on_hold', 'verification_required', 'cloud_credential_error']);

class ClaudeEvents implements JsonEventHandler {
  private sessionId: string | null = null;
  private result: JsonEvent | null = null;
  private assistantError: JsonEvent | null = null;
  /** Set while Claude Code's last rate_limit_event said "rejected": the reset (epoch ms), or null if it gave none. */
  private usageLimitResetMs: number | null | undefined = undefined;

  event(event: JsonEvent): string {
    const type = str(event['type']);
    this.sessionId = str(event['session_id']) ?? this.sessionId;
    if (type === 'result') this.result = event;
    if (type === 'assistant' && str(event['error']) !== null) this.assistantError = event;
    if (type === 'rate_limit_event') {
      const info = record(event['rate_limit_info']);
      const resetsAt = num(info['resetsAt']);
      this.usageLimitResetMs = info['status'] !== 'rejected' ? undefined : resetsAt === null ? null : resetsAt * 1000;
    }
    return renderEvent(event);
  }

  report(run: FinishedRun): AgentReport {
    const final = this.result;
    // Without any event the output is plain text (--output-format text): look for the promise
    // there. With events but no result, the run ended early: no final message, no promise.
    const report: AgentReport = { finalMessage: finalMessageOf(final === null ? null : (str(final['result']) ?? ''), run), failure: this.failure(run) };
    const sessionId = str(final?.['session_id']) ?? this.sessionId;
    if (sessionId !== null) report.agentSessionId = sessionId;
    const input = inputTokens(final?.['usage']);
    const output = num(record(final?.['usage'])['output_tokens']);
    if (input !== null && output !== null) report.tokens = { input, output };
    const cost = num(final?.['total_cost_usd']);
    if (cost !== null) report.costUsd = cost;
    return report;
  }

  private failure({ result, sawJson }: FinishedRun): HarnessFailure | null {
    const final = this.result;
    if (final !== null) {
      if (final['is_error'] !== true) return null;
      const assistant = this.assistantError;
      const errors = Array.isArray(final['errors']) ? final['errors'].filter((e): e is string => typeof e === 'string') : [];
      return classifyApiError(
        {
          status: num(final['api_error_status']) ?? num(assistant?.['api_error_status']),
          type: str(final['api_error_type']) ?? str(assistant?.['api_error_type']),
          kind: str(assistant?.['error']),
          text: str(final['result']) ?? errors.join('; '),
        },
        this.usageLimitResetMs,
      );
    }
    if (result.exitCode === 0 || result.exitCode === null) return null;
    // No result event: whatever Claude Code printed last (plain text output, or a refusal on stderr).
    const said = lastLine(result.stderrTail) || (sawJson ? '' : lastLine(result.stdoutTail));
    if (said === '') return null;
    return classifyStartup(said) ?? classifyApiError({ status: null, type: null, kind: null, text: said }, this.usageLimitResetMs);
  }
}

/** Claude Code's own refusals to start, which no retry can fix. */
function classifyStartup(text: string): HarnessFailure | null {
  if (/cannot be used with root\/sudo privileges/i.test(text)) {
    return {
      kind: 'hard',
      code: 'E_HARNESS_FATAL',
      message: `Claude Code refused to run: ${text}. Run wiggum as a normal user, or, inside a container or sandbox, set IS_SANDBOX: "1" in the harness's env (or drop --permission-mode bypassPermissions from its args)`,
    };
  }
  return null;
}

/**
 * Sorts a failed run by what Claude Code said, in the words of version 2.1.x: its result text for
 * an API error is e.g. "API Error: Request rejected (429) · …", "API Error: 529 Overloaded. …",
 * "Invalid API key · Fix external API key", "Not logged in · Please run /login",
 * "API Error: Connection refused … (ECONNREFUSED)", "You've hit your 5-hour limit · resets 7:53pm".
 * Older versions printed "Claude AI usage limit reached|<epoch seconds>". Null: an ordinary failure.
 */
export function classifyApiError(error: ApiError, usageLimitResetMs: number | null | undefined): HarnessFailure | null {
  const { status, type, kind, text } = error;
  const said = text.trim() === '' ? `API error ${status ?? ''}`.trim() : text.trim();
  const legacy = /usage limit reached\|(\d{9,13})/i.exec(text);
  const rateLimited = status === 429 || type === 'rate_limit_error' || kind === 'rate_limit';
  if (legacy !== null || (rateLimited && usageLimitResetMs !== undefined) || /you've hit your .*limit|usage limit reached/i.test(text)) {
    const epoch = legacy?.[1] === undefined ? null : Number(legacy[1]);
    const resetAtMs = epoch !== null ? (epoch < 1e12 ? epoch * 1000 : epoch) : (usageLimitResetMs ?? null);
    return { kind: 'usage-limit', code: 'E_HARNESS_USAGE_LIMIT', message: `Claude Code hit a usage limit: ${said.replace(/\|\d+$/, '')}`, resetAtMs };
  }
  if (rateLimited || /request rejected \(429\)|rate.?limit/i.test(text)) {
    return { kind: 'transient', code: 'E_HARNESS_RATE_LIMIT', message: `the API rate limit was hit (429): ${said}` };
  }
  if (status === 529 || type === 'overloaded_error' || kind === 'overloaded' || /\b529\b|overloaded/i.test(text)) {
    return { kind: 'transient', code: 'E_HARNESS_RATE_LIMIT', message: `the API is overloaded (529): ${said}` };
  }
  if (kind === 'billing_error' || /credit balance is too low/i.test(text)) {
    return { kind: 'hard', code: 'E_HARNESS_USAGE_LIMIT', message: `the account has no credit left: ${said}; add credits (or check the plan) of the account the API key belongs to` };
  }
  if (
    (kind !== null && AUTH_KINDS.has(kind)) ||
    status === 401 ||
    status === 403 ||
    type === 'authentication_error' ||
    type === 'permission_error' ||
    /invalid api key|please run \/login|not logged in|failed to authenticate|authentication_error|oauth token (?:has )?(?:expired|been revoked)/i.test(text)
  ) {
    return { kind: 'hard', code: 'E_HARNESS_AUTH', message: `Claude Code could not authenticate: ${said}; ${AUTH_FIX}` };
  }
  if (kind === 'model_not_found' || (status === 404 && type === 'not_found_error')) {
    return { kind: 'hard', code: 'E_HARNESS_FATAL', message: `the model is not available: ${said}; check --model in the harness's args` };
  }
  if (status === null && (kind === 'server_error' || /\b(?:ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EPIPE|EHOSTUNREACH|ENETUNREACH)\b|connection (?:refused|dropped|error|reset)|socket hang up|fetch failed|request timed out/i.test(text))) {
    return { kind: 'transient', code: 'E_HARNESS_NETWORK', message: `the API could not be reached: ${said}` };
  }
  if ((status !== null && status >= 500) || /API Error: 5\d\d\b/.test(text)) {
    return { kind: 'transient', code: 'E_HARNESS_TEMPFAIL', message: `the API had a server error: ${said}` };
  }
  return null;
}
