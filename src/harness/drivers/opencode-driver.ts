import type { AgentReport, HarnessDriver, HarnessFailure } from './driver.js';
import { lastLines } from './driver.js';
import type { AgentFacts } from './failure-text.js';
import { classifyFailureText, excerpt } from './failure-text.js';
import type { FinishedRun, JsonEvent } from './json-lines-reader.js';
import { isRecord } from './json-events.js';
import { addTokens, at, finalMessageOf, jsonLinesReader, numberAt, oneLine, outputPreview, textAt } from './json-lines-reader.js';

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
 * The final message is the last text part. Tokens: input counts cache reads and writes too.
 */
export const OPENCODE_AGENT: AgentFacts = {
  name: 'OpenCode',
  authFix: 'run `opencode auth login` as the user wiggum runs as, or set the provider key named in your opencode.json (and add it to harness.env_allowlist)',
};

export const opencodeDriver: HarnessDriver = {
  kind: 'opencode',
  installHint: 'install it with npm i -g opencode-ai',
  createReader: () => jsonLinesReader(new OpencodeEvents()),
};

class OpencodeEvents {
  private lastMessage: string | null = null;
  private sessionId: string | null = null;
  private tokens: { input: number; output: number } | undefined;
  private costUsd: number | undefined;
  private error: JsonEvent | null = null;

  event(event: JsonEvent): string {
    this.sessionId = textAt(event, 'sessionID') ?? this.sessionId;
    switch (textAt(event, 'type')) {
      case 'text': {
        const text = textAt(event, 'part', 'text') ?? '';
        this.lastMessage = text;
        return `${text}\n`;
      }
      case 'reasoning':
        return `· ${oneLine(textAt(event, 'part', 'text') ?? '', 300)}\n`;
      case 'tool_use':
        return toolLine(event);
      case 'step_finish': {
        const input = sum(numberAt(event, 'part', 'tokens', 'input'), numberAt(event, 'part', 'tokens', 'cache', 'read'), numberAt(event, 'part', 'tokens', 'cache', 'write'));
        const output = sum(numberAt(event, 'part', 'tokens', 'output'), numberAt(event, 'part', 'tokens', 'reasoning'));
        this.tokens = addTokens(this.tokens, input, output);
        const cost = numberAt(event, 'part', 'cost');
        if (cost !== null) this.costUsd = (this.costUsd ?? 0) + cost;
        return '';
      }
      case 'error': {
        const data = at(event, 'error', 'data');
        this.error = { ...(isRecord(data) ? data : {}), name: textAt(event, 'error', 'name') };
        return `! ${errorText(this.error)}\n`;
      }
      default:
        return '';
    }
  }

  report(run: FinishedRun): AgentReport {
    const report: AgentReport = { finalMessage: finalMessageOf(this.lastMessage, run), failure: this.failure(run) };
    if (this.sessionId !== null) report.agentSessionId = this.sessionId;
    if (this.tokens !== undefined) report.tokens = this.tokens;
    if (this.costUsd !== undefined) report.costUsd = this.costUsd;
    return report;
  }

  private failure(run: FinishedRun): HarnessFailure | null {
    const error = this.error;
    if (error === null) {
      if (run.result.exitCode === 0 || run.result.exitCode === null) return null;
      return classifyFailureText([lastLines(run.result.stderrTail), ...run.plainLines.slice(-3)].join('\n'), OPENCODE_AGENT, run.endedAtMs);
    }
    const status = numberAt(error, 'statusCode');
    const text = errorText(error);
    if (textAt(error, 'name') === 'ProviderAuthError' || status === 401 || status === 403) {
      return { kind: 'hard', code: 'E_HARNESS_AUTH', message: `${OPENCODE_AGENT.name} refused the credentials: ${excerpt(text)}; ${OPENCODE_AGENT.authFix}, then retry the task` };
    }
    const classified = classifyFailureText(`${text}\n${textAt(error, 'responseBody') ?? ''}`, OPENCODE_AGENT, run.endedAtMs);
    if (classified !== null) return classified;
    if (at(error, 'isRetryable') === true) return { kind: 'transient', code: 'E_HARNESS_RATE_LIMIT', message: `${OPENCODE_AGENT.name} reported a retryable error: ${excerpt(text)}` };
    return null;
  }
}

function sum(...values: (number | null)[]): number | null {
  const present = values.filter((value) => value !== null);
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0);
}

function errorText(error: JsonEvent): string {
  const status = numberAt(error, 'statusCode');
  const name = textAt(error, 'name') ?? 'error';
  return `${name}${status === null ? '' : ` (status ${status})`}: ${textAt(error, 'message') ?? ''}`;
}

function toolLine(event: JsonEvent): string {
  const tool = textAt(event, 'part', 'tool') ?? 'tool';
  const title = textAt(event, 'part', 'state', 'title') ?? oneLine(at(event, 'part', 'state', 'input') ?? '');
  const head = tool === 'bash' ? `$ ${oneLine(title)}\n` : `· ${tool} ${oneLine(title)}\n`;
  if (textAt(event, 'part', 'state', 'status') === 'error') return `${head}  ! ${oneLine(textAt(event, 'part', 'state', 'error') ?? '')}\n`;
  return tool === 'bash' ? head + outputPreview(textAt(event, 'part', 'state', 'output') ?? '') : head;
}
