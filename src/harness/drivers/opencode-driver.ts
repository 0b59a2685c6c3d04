import type { AgentError, AgentEvent } from './agent-event.js';
import type { HarnessDriver } from './driver.js';
import { lastLines } from './driver.js';
import type { AgentFacts } from './failure-text.js';
import { authMessage, classifyFailureText, excerpt } from './failure-text.js';
import { isRecord } from './json-events.js';
import type { AgentStreamParser, FinishedRun, JsonEvent } from './json-lines-reader.js';
import { at, jsonLinesReader, numberAt, textAt } from './json-lines-reader.js';
import { oneLine } from './render-event.js';

/**
 * OpenCode, `opencode run --format json` with the prompt on stdin (checked against opencode 1.18).
 * Every line is {"type","timestamp","sessionID","part"|"error"}:
 *   step_start                                        a model call begins
 *   text        part.text                             a finished block of the agent's text
 *   reasoning   part.text                             (with --thinking)
 *   tool_use    part.tool, part.state.{status,input,output,error,title}
 *   step_finish part.tokens.{input,output,reasoning,cache.{read,write}}, part.cost (USD), part.reason
 *   error       error.name ("APIError", "ProviderAuthError", …), error.data.{message,statusCode,
 *               isRetryable,responseBody}                                   the run failed (exit 1)
 * The final message is the last text part. Tokens and cost come per step and are summed.
 */
export const OPENCODE_AGENT: AgentFacts = {
  name: 'OpenCode',
  authFix:
    'run `opencode auth login` as the user wiggum runs as, or set the provider key named in your opencode.json (and add it to harness.env_allowlist)',
};

export const opencodeDriver: HarnessDriver = {
  kind: 'opencode',
  installHint: 'install it with npm i -g opencode-ai',
  createReader: () => jsonLinesReader(new OpencodeParser()),
};

class OpencodeParser implements AgentStreamParser {
  readonly agent = OPENCODE_AGENT.name;
  private sessionId: string | null = null;
  private error: JsonEvent | null = null;

  event(event: JsonEvent): AgentEvent[] {
    const events: AgentEvent[] = [];
    const sessionId = textAt(event, 'sessionID');
    if (sessionId !== null && sessionId !== this.sessionId) {
      this.sessionId = sessionId;
      events.push({ type: 'session', sessionId });
    }
    switch (textAt(event, 'type')) {
      case 'text': {
        const text = textAt(event, 'part', 'text') ?? '';
        return [...events, { type: 'text', text }, { type: 'final_message', text }];
      }
      case 'reasoning':
        return [...events, { type: 'thinking', text: textAt(event, 'part', 'text') ?? '' }];
      case 'tool_use':
        return [...events, ...toolEvents(event)];
      case 'step_finish':
        return [...events, stepUsage(event)];
      case 'error': {
        const data = at(event, 'error', 'data');
        this.error = { ...(isRecord(data) ? data : {}), name: textAt(event, 'error', 'name') };
        return [...events, { type: 'notice', text: `! ${errorText(this.error)}` }];
      }
      case null:
      default:
        return events;
    }
  }

  finish(run: FinishedRun): AgentEvent[] {
    // Classified at the end, where "try again in 2h" can be read against when the run ended.
    if (this.error !== null) return [{ type: 'error', said: '', ...classify(this.error, run.endedAtMs) }];
    if (run.result.exitCode === 0 || run.result.exitCode === null) return [];
    const error = classifyFailureText(
      [lastLines(run.result.stderrTail), ...run.plainLines.slice(-3)].join('\n'),
      OPENCODE_AGENT,
      run.endedAtMs,
    );
    return error === null ? [] : [{ type: 'error', said: '', ...error }];
  }
}

/** A step's tokens: input counts cache reads and writes, output counts reasoning. */
function stepUsage(event: JsonEvent): AgentEvent {
  const cacheRead = numberAt(event, 'part', 'tokens', 'cache', 'read') ?? 0;
  const cacheWrite = numberAt(event, 'part', 'tokens', 'cache', 'write') ?? 0;
  const usage: AgentEvent & { type: 'usage' } = {
    type: 'usage',
    usage: {
      inputTokens: (numberAt(event, 'part', 'tokens', 'input') ?? 0) + cacheRead + cacheWrite,
      outputTokens:
        (numberAt(event, 'part', 'tokens', 'output') ?? 0) + (numberAt(event, 'part', 'tokens', 'reasoning') ?? 0),
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
    },
  };
  const cost = numberAt(event, 'part', 'cost');
  if (cost !== null) usage.usage.costUsd = cost;
  return usage;
}

function classify(error: JsonEvent, nowMs: number): AgentError {
  const status = numberAt(error, 'statusCode');
  const text = errorText(error);
  if (textAt(error, 'name') === 'ProviderAuthError' || status === 401 || status === 403)
    return { kind: 'auth', message: authMessage(OPENCODE_AGENT, excerpt(text)) };
  const classified = classifyFailureText(`${text}\n${textAt(error, 'responseBody') ?? ''}`, OPENCODE_AGENT, nowMs);
  if (classified !== null) return classified;
  if (at(error, 'isRetryable') === true)
    return { kind: 'overloaded', message: `${OPENCODE_AGENT.name} reported a retryable error: ${excerpt(text)}` };
  return { kind: 'other', message: `${OPENCODE_AGENT.name} failed: ${excerpt(text)}` };
}

function errorText(error: JsonEvent): string {
  const status = numberAt(error, 'statusCode');
  const name = textAt(error, 'name') ?? 'error';
  return `${name}${status === null ? '' : ` (status ${status})`}: ${textAt(error, 'message') ?? ''}`;
}

function toolEvents(event: JsonEvent): AgentEvent[] {
  const tool = textAt(event, 'part', 'tool') ?? 'tool';
  const summary =
    textAt(event, 'part', 'state', 'input', 'command') ??
    textAt(event, 'part', 'state', 'title') ??
    oneLine(at(event, 'part', 'state', 'input') ?? '');
  const status = textAt(event, 'part', 'state', 'status');
  const use: AgentEvent = { type: 'tool_use', name: tool, summary };
  if (status === 'error')
    return [use, { type: 'tool_result', ok: false, output: textAt(event, 'part', 'state', 'error') ?? '' }];
  if (status !== 'completed') return [use];
  return [
    use,
    {
      type: 'tool_result',
      ok: true,
      output: textAt(event, 'part', 'state', 'output') ?? '',
      exitCode: numberAt(event, 'part', 'state', 'metadata', 'exit'),
    },
  ];
}
