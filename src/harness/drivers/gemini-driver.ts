import type { AgentEvent } from './agent-event.js';
import { usageFacts } from './agent-event.js';
import type { HarnessDriver } from './driver.js';
import { lastLine } from './driver.js';
import type { AgentFacts } from './failure-text.js';
import { authMessage, classifyFailureText, excerpt } from './failure-text.js';
import type { AgentStreamParser, FinishedRun, JsonEvent } from './json-lines-reader.js';
import { at, jsonLinesReader, numberAt, textAt } from './json-lines-reader.js';
import { oneLine } from './render-event.js';

/**
 * Gemini CLI, `gemini --output-format stream-json` with the prompt on stdin (checked against
 * gemini-cli 0.61). One JSON event per line on stdout; notices and stack traces on stderr:
 *   {"type":"init","session_id","model"}
 *   {"type":"message","role":"user"|"assistant","content","delta":true}   assistant text arrives in pieces
 *   {"type":"tool_use","tool_name","tool_id","parameters"}
 *   {"type":"tool_result","tool_id","status":"success"|"error","output","error":{"message"}}
 *   {"type":"error","severity","message"}                                 a warning; the run goes on
 *   {"type":"result","status":"success"|"error","error":{"type","message"},
 *    "stats":{"input_tokens","output_tokens","total_tokens","cached","duration_ms","tool_calls","models"}}
 * The final message is the assistant text after the last tool call. An API failure ends with a
 * result of status "error" whose message embeds the API's error JSON, and an exit code that is the
 * HTTP status cut to 8 bits (401 → 145), so the text decides, not the code. Its own fatal errors
 * exit with fixed codes: 41 authentication, 42 input, 44 sandbox, 52 config, 53 turn limit,
 * 55 untrusted workspace. Gemini reports no cost.
 */
export const GEMINI_AGENT: AgentFacts = {
  name: 'Gemini CLI',
  authFix:
    'set GEMINI_API_KEY (it is in harness.env_allowlist) for wiggum, or sign in once with `gemini` as the user wiggum runs as and pick the auth method in ~/.gemini/settings.json',
};

const EXIT_AUTH = 41;
/** Input, sandbox, config and untrusted-workspace errors: retrying the same command cannot help. */
const EXIT_FATAL = new Set([42, 44, 52, 55]);

export const geminiDriver: HarnessDriver = {
  kind: 'gemini',
  installHint: 'install it with npm i -g @google/gemini-cli',
  createReader: () => jsonLinesReader(new GeminiParser()),
};

class GeminiParser implements AgentStreamParser {
  readonly agent = GEMINI_AGENT.name;
  private message = '';
  /** The next assistant piece starts a new message (a tool ran since the last one). */
  private messageClosed = true;
  private result: JsonEvent | null = null;

  event(event: JsonEvent): AgentEvent[] {
    const type = textAt(event, 'type');
    if (type === 'tool_use' || type === 'tool_result') this.messageClosed = true;
    switch (type) {
      case 'init':
        return [{ type: 'session', sessionId: textAt(event, 'session_id'), model: textAt(event, 'model') }];
      case 'message':
        return textAt(event, 'role') === 'assistant' ? this.assistant(event) : [];
      case 'tool_use':
        return [toolUse(event)];
      case 'tool_result':
        return [
          textAt(event, 'status') === 'error'
            ? {
                type: 'tool_result',
                ok: false,
                output: textAt(event, 'error', 'message') ?? textAt(event, 'output') ?? 'the tool failed',
              }
            : { type: 'tool_result', ok: true, output: textAt(event, 'output') ?? '' },
        ];
      case 'error':
        return [{ type: 'notice', text: `! ${textAt(event, 'message') ?? ''}` }];
      case 'result':
        this.result = event;
        return this.closing(event);
      case null:
      default:
        return [];
    }
  }

  private assistant(event: JsonEvent): AgentEvent[] {
    const content = textAt(event, 'content') ?? '';
    const delta = at(event, 'delta') === true;
    this.message = delta && !this.messageClosed ? `${this.message}${content}` : content;
    this.messageClosed = !delta;
    return [
      { type: 'text', text: content, partial: delta },
      { type: 'final_message', text: this.message },
    ];
  }

  private closing(event: JsonEvent): AgentEvent[] {
    const events: AgentEvent[] = [];
    const input = numberAt(event, 'stats', 'input_tokens');
    const output = numberAt(event, 'stats', 'output_tokens');
    const usage =
      input !== null && output !== null && input + output > 0
        ? {
            inputTokens: input,
            outputTokens: output,
            cacheReadTokens: numberAt(event, 'stats', 'cached') ?? 0,
            cacheWriteTokens: 0,
          }
        : null;
    if (usage !== null) events.push({ type: 'usage', usage, total: true });
    const durationMs = numberAt(event, 'stats', 'duration_ms');
    const facts = [...(durationMs === null ? [] : [`${(durationMs / 1000).toFixed(1)} s`]), ...usageFacts(usage)];
    const failed = textAt(event, 'status') === 'error';
    events.push({
      type: 'finished',
      ok: !failed,
      agent: GEMINI_AGENT.name,
      facts,
      said: failed ? (textAt(event, 'error', 'message') ?? '') : '',
    });
    return events;
  }

  finish(run: FinishedRun): AgentEvent[] {
    const exitCode = run.result.exitCode;
    if (this.result !== null && textAt(this.result, 'status') !== 'error') return [];
    if (this.result === null && (exitCode === 0 || exitCode === null)) return [];
    const stderr = lastLine(
      run.result.stderrTail
        .split('\n')
        .filter((line) => !/^\s+at |^\s*[}\]]?$/.test(line))
        .join('\n'),
    );
    const said = textAt(this.result, 'error', 'message') ?? [...run.plainLines.slice(-3), stderr].join('\n');
    if (exitCode === EXIT_AUTH)
      return [{ type: 'error', said: '', kind: 'auth', message: authMessage(GEMINI_AGENT, excerpt(said)) }];
    if (exitCode !== null && EXIT_FATAL.has(exitCode)) {
      return [
        {
          type: 'error',
          said: '',
          kind: 'fatal',
          message: `${GEMINI_AGENT.name} refused to run (exit ${exitCode}): ${excerpt(said)}; check harnesses.<name>.args (--skip-trust, --yolo) and ~/.gemini/settings.json`,
        },
      ];
    }
    const error = classifyFailureText(said, GEMINI_AGENT, run.endedAtMs);
    return error === null ? [] : [{ type: 'error', said: '', ...error }];
  }
}

function toolUse(event: JsonEvent): AgentEvent {
  const name = textAt(event, 'tool_name') ?? 'tool';
  const summary =
    textAt(event, 'parameters', 'command') ??
    textAt(event, 'parameters', 'file_path') ??
    textAt(event, 'parameters', 'absolute_path') ??
    oneLine(at(event, 'parameters') ?? '');
  return { type: 'tool_use', name, summary };
}
