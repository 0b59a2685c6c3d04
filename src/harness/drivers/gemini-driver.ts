import type { AgentReport, HarnessDriver, HarnessFailure } from './driver.js';
import { lastLine } from './driver.js';
import type { AgentFacts } from './failure-text.js';
import { classifyFailureText, excerpt } from './failure-text.js';
import type { FinishedRun, JsonEvent } from './json-lines-reader.js';
import { at, finalMessageOf, jsonLinesReader, numberAt, oneLine, outputPreview, textAt } from './json-lines-reader.js';

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
  authFix: 'set GEMINI_API_KEY (it is in harness.env_allowlist) for wiggum, or sign in once with `gemini` as the user wiggum runs as and pick the auth method in ~/.gemini/settings.json',
};

const EXIT_AUTH = 41;
/** Input, sandbox, config and untrusted-workspace errors: retrying the same command cannot help. */
const EXIT_FATAL = new Set([42, 44, 52, 55]);

export const geminiDriver: HarnessDriver = {
  kind: 'gemini',
  installHint: 'install it with npm i -g @google/gemini-cli',
  createReader: () => jsonLinesReader(new GeminiEvents()),
};

class GeminiEvents {
  private message: string | null = null;
  /** The next assistant piece starts a new message (a tool ran since the last one). */
  private messageClosed = true;
  /** The live display is in the middle of a line of streamed text. */
  private lineOpen = false;
  private sessionId: string | null = null;
  private result: JsonEvent | null = null;

  event(event: JsonEvent): string {
    const type = textAt(event, 'type');
    if (type === 'message' && textAt(event, 'role') === 'assistant') return this.assistant(event);
    if (type === 'tool_use' || type === 'tool_result') this.messageClosed = true;
    const shown = this.show(event, type);
    if (shown === '' || !this.lineOpen) return shown;
    this.lineOpen = false;
    return `\n${shown}`;
  }

  private show(event: JsonEvent, type: string | null): string {
    switch (type) {
      case 'init':
        this.sessionId = textAt(event, 'session_id') ?? this.sessionId;
        return `● Gemini CLI · model ${textAt(event, 'model') ?? '?'} · session ${this.sessionId ?? '?'}\n`;
      case 'tool_use':
        return toolUseLine(event);
      case 'tool_result':
        return toolResultLine(event);
      case 'error':
        return `! ${textAt(event, 'message') ?? ''}\n`;
      case 'result':
        this.result = event;
        return resultLine(event);
      default:
        return '';
    }
  }

  private assistant(event: JsonEvent): string {
    const content = textAt(event, 'content') ?? '';
    const delta = at(event, 'delta') === true;
    this.message = delta && !this.messageClosed ? `${this.message ?? ''}${content}` : content;
    this.messageClosed = !delta;
    const prefix = !delta && this.lineOpen ? '\n' : '';
    const shown = delta ? content : `${content}\n`;
    if (shown !== '') this.lineOpen = !shown.endsWith('\n');
    return prefix + shown;
  }

  report(run: FinishedRun): AgentReport {
    const report: AgentReport = { finalMessage: finalMessageOf(this.message, run), failure: this.failure(run) };
    if (this.sessionId !== null) report.agentSessionId = this.sessionId;
    const input = numberAt(this.result, 'stats', 'input_tokens');
    const output = numberAt(this.result, 'stats', 'output_tokens');
    if (input !== null && output !== null && input + output > 0) report.tokens = { input, output };
    return report;
  }

  private failure(run: FinishedRun): HarnessFailure | null {
    const exitCode = run.result.exitCode;
    if (this.result !== null && textAt(this.result, 'status') !== 'error') return null;
    if (this.result === null && (exitCode === 0 || exitCode === null)) return null;
    const stderr = lastLine(run.result.stderrTail.split('\n').filter((line) => !/^\s+at |^\s*[}\]]?$/.test(line)).join('\n'));
    const said = textAt(this.result, 'error', 'message') ?? [...run.plainLines.slice(-3), stderr].join('\n');
    if (exitCode === EXIT_AUTH) {
      return { kind: 'hard', code: 'E_HARNESS_AUTH', message: `${GEMINI_AGENT.name} could not authenticate: ${excerpt(said)}; ${GEMINI_AGENT.authFix}, then retry the task` };
    }
    if (exitCode !== null && EXIT_FATAL.has(exitCode)) {
      return { kind: 'hard', code: 'E_HARNESS_FATAL', message: `${GEMINI_AGENT.name} refused to run (exit ${exitCode}): ${excerpt(said)}; check harnesses.<name>.args (--skip-trust, --yolo) and ~/.gemini/settings.json` };
    }
    return classifyFailureText(said, GEMINI_AGENT, run.endedAtMs);
  }
}

function toolUseLine(event: JsonEvent): string {
  const name = textAt(event, 'tool_name') ?? 'tool';
  const command = textAt(event, 'parameters', 'command');
  if (name === 'run_shell_command' && command !== null) return `$ ${oneLine(command)}\n`;
  return `· ${name} ${oneLine(at(event, 'parameters') ?? '')}\n`;
}

function toolResultLine(event: JsonEvent): string {
  if (textAt(event, 'status') === 'error') return `  ! ${oneLine(textAt(event, 'error', 'message') ?? textAt(event, 'output') ?? 'the tool failed')}\n`;
  return outputPreview(textAt(event, 'output') ?? '');
}

function resultLine(event: JsonEvent): string {
  const facts: string[] = [];
  const durationMs = numberAt(event, 'stats', 'duration_ms');
  const input = numberAt(event, 'stats', 'input_tokens');
  const output = numberAt(event, 'stats', 'output_tokens');
  if (durationMs !== null) facts.push(`${(durationMs / 1000).toFixed(1)} s`);
  if (input !== null && output !== null) facts.push(`${input} in / ${output} out tokens`);
  const detail = facts.length === 0 ? '' : ` (${facts.join(', ')})`;
  if (textAt(event, 'status') === 'error') return `✗ Gemini CLI ended with an error${detail}: ${textAt(event, 'error', 'message') ?? ''}\n`;
  return `✓ Gemini CLI finished${detail}\n`;
}
