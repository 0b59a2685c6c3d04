import { inputTokens, renderEvent } from './claude-events.js';
import { isRecord } from './json-events.js';
import type { AgentReport, HarnessDriver, HarnessFailure } from './driver.js';
import { lastLines } from './driver.js';
import type { AgentFacts } from './failure-text.js';
import { classifyFailureText } from './failure-text.js';
import type { FinishedRun, JsonEvent } from './json-lines-reader.js';
import { addTokens, at, finalMessageOf, jsonLinesReader, listAt, numberAt, textAt } from './json-lines-reader.js';

/**
 * Amp, `amp -x --stream-json` with the prompt on stdin: Claude Code's stream JSON (ampcode.com,
 * "Streaming JSON"; the CLI's own server protocol is private, so these shapes come from Amp's
 * documentation, not a recording):
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
  authFix: 'set AMP_API_KEY (it is in harness.env_allowlist; an access token from ampcode.com/settings) for wiggum, or run `amp login` as the user wiggum runs as',
};

export const ampDriver: HarnessDriver = {
  kind: 'amp',
  installHint: 'install it with npm i -g @ampcode/cli (formerly @sourcegraph/amp)',
  createReader: () => jsonLinesReader(new AmpEvents()),
};

class AmpEvents {
  private lastMessage: string | null = null;
  private sessionId: string | null = null;
  private result: JsonEvent | null = null;
  private tokens: { input: number; output: number } | undefined;
  private readonly countedMessages = new Set<string>();

  event(event: JsonEvent): string {
    this.sessionId = textAt(event, 'session_id') ?? this.sessionId;
    switch (textAt(event, 'type')) {
      case 'system':
        return textAt(event, 'subtype') === 'init' ? `● Amp · session ${this.sessionId ?? '?'}\n` : '';
      case 'assistant':
        this.assistant(event);
        return renderEvent(event);
      case 'user':
        return renderEvent(event);
      case 'result':
        this.result = event;
        return resultLine(event);
      default:
        return '';
    }
  }

  private assistant(event: JsonEvent): void {
    const texts = listAt(event, 'message', 'content')
      .filter((block) => isRecord(block) && block.type === 'text')
      .map((block) => textAt(block, 'text') ?? '');
    if (texts.length > 0) this.lastMessage = texts.join('\n');
    // A message split over several events repeats its usage: count each message id once.
    const id = textAt(event, 'message', 'id');
    if (id !== null) {
      if (this.countedMessages.has(id)) return;
      this.countedMessages.add(id);
    }
    this.tokens = addTokens(this.tokens, inputTokens(at(event, 'message', 'usage')), numberAt(event, 'message', 'usage', 'output_tokens'));
  }

  report(run: FinishedRun): AgentReport {
    const result = this.result;
    const finalMessage = result === null ? this.lastMessage : (textAt(result, 'result') ?? this.lastMessage);
    const report: AgentReport = { finalMessage: finalMessageOf(finalMessage, run), failure: this.failure(run) };
    const sessionId = textAt(result, 'session_id') ?? this.sessionId;
    if (sessionId !== null) report.agentSessionId = sessionId;
    const input = inputTokens(at(result, 'usage'));
    const output = numberAt(result, 'usage', 'output_tokens');
    if (input !== null && output !== null) report.tokens = { input, output };
    else if (this.tokens !== undefined) report.tokens = this.tokens;
    const cost = numberAt(result, 'total_cost_usd');
    if (cost !== null) report.costUsd = cost;
    return report;
  }

  private failure(run: FinishedRun): HarnessFailure | null {
    const result = this.result;
    if (result !== null) {
      if (result.is_error !== true) return null;
      const errors = listAt(result, 'errors').filter((e) => typeof e === 'string');
      const said = textAt(result, 'error') ?? textAt(result, 'result') ?? errors.join('; ');
      return classifyFailureText(said === '' ? `Amp ended with ${textAt(result, 'subtype') ?? 'an error'}` : said, AMP_AGENT, run.endedAtMs);
    }
    if (run.result.exitCode === 0 || run.result.exitCode === null) return null;
    const said = [...run.plainLines.slice(-3), lastLines(run.result.stderrTail)].join('\n');
    if (/no api key found|starting login flow|login failed/i.test(said)) {
      return { kind: 'hard', code: 'E_HARNESS_AUTH', message: `Amp has no API key and tried to start an interactive login; ${AMP_AGENT.authFix}, then retry the task` };
    }
    return classifyFailureText(said, AMP_AGENT, run.endedAtMs);
  }
}

function resultLine(event: JsonEvent): string {
  const facts: string[] = [];
  const turns = numberAt(event, 'num_turns');
  const durationMs = numberAt(event, 'duration_ms');
  if (turns !== null) facts.push(`${turns} turn${turns === 1 ? '' : 's'}`);
  if (durationMs !== null) facts.push(`${(durationMs / 1000).toFixed(1)} s`);
  const detail = facts.length === 0 ? '' : ` (${facts.join(', ')})`;
  if (event.is_error === true) return `✗ Amp ended with an error${detail}: ${textAt(event, 'error') ?? textAt(event, 'result') ?? textAt(event, 'subtype') ?? ''}\n`;
  return `✓ Amp finished${detail}\n`;
}
