import type { AgentEvent } from './agent-event.js';
import { usageFacts } from './agent-event.js';
import { messageEvents, messageText, resultFacts, resultText, usageOf } from './claude-events.js';
import type { HarnessDriver } from './driver.js';
import { lastLines } from './driver.js';
import type { AgentFacts } from './failure-text.js';
import { authMessage, classifyFailureText } from './failure-text.js';
import type { AgentStreamParser, FinishedRun, JsonEvent } from './json-lines-reader.js';
import { at, jsonLinesReader, numberAt, textAt } from './json-lines-reader.js';

/**
 * Amp, `amp -x --stream-json` with the prompt on stdin: Claude Code's stream JSON (ampcode.com,
 * "Streaming JSON"). Amp runs its agent loop on its own service, so it cannot be driven offline:
 * the success shapes come from its documentation, the failure texts from the real binary:
 *   {"type":"system","subtype":"init","session_id":"T-…","cwd","tools",…}
 *   {"type":"user"|"assistant","message":{"content":[{type:text|tool_use|tool_result,…}],"usage":{…}},"session_id"}
 *   {"type":"result","subtype":"success"|"error_…","is_error","result","duration_ms","num_turns","session_id"}
 * Without a key it prints "No API key found. Starting login flow..." (stdout, not JSON) or
 * "Error: Invalid or missing API key. Run 'amp login' to authenticate." (stderr) and exits 1.
 * The final message is the result's `result`; tokens are summed over the assistant messages
 * (a result `usage` and `total_cost_usd`, as Claude Code prints them, win when present).
 */
export const AMP_AGENT: AgentFacts = {
  name: 'Amp',
  authFix:
    'set AMP_API_KEY (it is in harness.env_allowlist; an access token from ampcode.com/settings) for wiggum, or run `amp login` as the user wiggum runs as',
};

export const ampDriver: HarnessDriver = {
  kind: 'amp',
  installHint: 'install it with npm i -g @ampcode/cli (formerly @sourcegraph/amp)',
  createReader: () => jsonLinesReader(new AmpParser()),
};

class AmpParser implements AgentStreamParser {
  readonly agent = AMP_AGENT.name;
  private result: JsonEvent | null = null;
  private readonly countedMessages = new Set<string>();

  event(event: JsonEvent): AgentEvent[] {
    const sessionId = textAt(event, 'session_id');
    switch (textAt(event, 'type')) {
      case 'system':
        return textAt(event, 'subtype') === 'init' ? [{ type: 'session', sessionId }] : [];
      case 'assistant':
        return [...this.assistant(event), ...messageEvents(event)];
      case 'user':
        return messageEvents(event);
      case 'result':
        this.result = event;
        return this.closing(event);
      case null:
      default:
        return [];
    }
  }

  private assistant(event: JsonEvent): AgentEvent[] {
    const events: AgentEvent[] = [];
    const text = messageText(event);
    if (text !== null) events.push({ type: 'final_message', text });
    // A message split over several events repeats its usage: count each message id once.
    const id = textAt(event, 'message', 'id');
    if (id !== null) {
      if (this.countedMessages.has(id)) return events;
      this.countedMessages.add(id);
    }
    const usage = usageOf(at(event, 'message', 'usage'));
    if (usage !== null) events.push({ type: 'usage', usage });
    return events;
  }

  private closing(event: JsonEvent): AgentEvent[] {
    const events: AgentEvent[] = [{ type: 'session', sessionId: textAt(event, 'session_id') }];
    const failed = event['is_error'] === true;
    const final = textAt(event, 'result');
    if (!failed && final !== null) events.push({ type: 'final_message', text: final });
    const usage = usageOf(event['usage'], numberAt(event, 'total_cost_usd'));
    if (usage !== null) events.push({ type: 'usage', usage, total: true });
    const said = textAt(event, 'error') ?? resultText(event);
    events.push({
      type: 'finished',
      ok: !failed,
      agent: AMP_AGENT.name,
      facts: [...resultFacts(event), ...usageFacts(usage)],
      said: failed ? said || (textAt(event, 'subtype') ?? '') : '',
    });
    return events;
  }

  finish(run: FinishedRun): AgentEvent[] {
    const result = this.result;
    if (result !== null) {
      if (result['is_error'] !== true) return [];
      const said = textAt(result, 'error') ?? resultText(result);
      const error = classifyFailureText(
        said === '' ? `Amp ended with ${textAt(result, 'subtype') ?? 'an error'}` : said,
        AMP_AGENT,
        run.endedAtMs,
      );
      return error === null ? [] : [{ type: 'error', said: '', ...error }];
    }
    if (run.result.exitCode === 0 || run.result.exitCode === null) return [];
    const said = [...run.plainLines.slice(-3), lastLines(run.result.stderrTail)].join('\n');
    if (/no api key found|starting login flow|login failed/i.test(said)) {
      return [
        {
          type: 'error',
          said: '',
          kind: 'auth',
          message: authMessage(AMP_AGENT, 'it has no API key and tried to start an interactive login'),
        },
      ];
    }
    const error = classifyFailureText(said, AMP_AGENT, run.endedAtMs);
    return error === null ? [] : [{ type: 'error', said: '', ...error }];
  }
}
