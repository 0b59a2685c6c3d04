import type { AgentReport, HarnessDriver, HarnessFailure } from './driver.js';
import { lastLine } from './driver.js';
import type { AgentFacts } from './failure-text.js';
import { classifyFailureText, excerpt } from './failure-text.js';
import type { FinishedRun, JsonEvent } from './json-lines-reader.js';
import { isRecord } from './json-events.js';
import { addTokens, at, finalMessageOf, jsonLinesReader, listAt, numberAt, oneLine, outputPreview, textAt } from './json-lines-reader.js';

/**
 * OpenAI Codex CLI, `codex exec --json … -` (checked against codex-cli 0.169). One JSON event per
 * line on stdout, logs on stderr:
 *   {"type":"thread.started","thread_id":"…"}                    the session id
 *   {"type":"turn.started"}
 *   {"type":"item.started"|"item.updated"|"item.completed","item":{"id","type",…}}
 *     item types: agent_message {text} · reasoning {text} · command_execution {command,
 *     aggregated_output, exit_code, status} · file_change {changes:[{path,kind}]} · mcp_tool_call
 *     {server,tool} · web_search {query} · todo_list {items} · error {message} (a warning)
 *   {"type":"turn.completed","usage":{"input_tokens","cached_input_tokens","output_tokens",…}}
 *   {"type":"turn.failed","error":{"message"}}                   the run failed (exit 1)
 *   {"type":"error","message"}                                   retry notices, and the fatal error
 * The final message is the last completed agent_message. Codex reports no cost.
 */
export const CODEX_AGENT: AgentFacts = {
  name: 'Codex',
  authFix: 'run `codex login` as the user wiggum runs as, or set OPENAI_API_KEY (it is in harness.env_allowlist), or fix the model provider in $CODEX_HOME/config.toml',
};

export const codexDriver: HarnessDriver = {
  kind: 'codex',
  installHint: 'install it with npm i -g @openai/codex',
  createReader: () => jsonLinesReader(new CodexEvents()),
};

class CodexEvents {
  private lastMessage: string | null = null;
  private threadId: string | null = null;
  private tokens: { input: number; output: number } | undefined;
  private failedWith: string | null = null;
  private lastError: string | null = null;

  event(event: JsonEvent): string {
    switch (textAt(event, 'type')) {
      case 'thread.started':
        this.threadId = textAt(event, 'thread_id') ?? this.threadId;
        return this.threadId === null ? '' : `· codex thread ${this.threadId}\n`;
      case 'item.started':
        return textAt(event, 'item', 'type') === 'command_execution' ? `$ ${oneLine(textAt(event, 'item', 'command') ?? '')}\n` : '';
      case 'item.completed':
        return isRecord(event.item) ? this.item(event.item) : '';
      case 'turn.completed':
        this.tokens = addTokens(this.tokens, numberAt(event, 'usage', 'input_tokens'), numberAt(event, 'usage', 'output_tokens'));
        return `· tokens: ${numberAt(event, 'usage', 'input_tokens') ?? 0} in, ${numberAt(event, 'usage', 'output_tokens') ?? 0} out\n`;
      case 'turn.failed':
        this.failedWith = textAt(event, 'error', 'message') ?? this.lastError ?? 'the turn failed';
        return `! turn failed: ${this.failedWith}\n`;
      case 'error': {
        const message = textAt(event, 'message') ?? '';
        this.lastError = message;
        return `! ${message}\n`;
      }
      default:
        return '';
    }
  }

  private item(item: JsonEvent): string {
    switch (textAt(item, 'type')) {
      case 'agent_message': {
        const text = textAt(item, 'text') ?? '';
        this.lastMessage = text;
        return `${text}\n`;
      }
      case 'reasoning':
        return `· ${oneLine(textAt(item, 'text') ?? '', 300)}\n`;
      case 'command_execution': {
        const exitCode = numberAt(item, 'exit_code');
        return `${outputPreview(textAt(item, 'aggregated_output') ?? '')}  (exit ${exitCode ?? textAt(item, 'status') ?? '?'})\n`;
      }
      case 'file_change':
        return listAt(item, 'changes')
          .map((change) => `· ${textAt(change, 'kind') ?? 'change'} ${textAt(change, 'path') ?? '?'}\n`)
          .join('');
      case 'mcp_tool_call':
        return `· tool ${textAt(item, 'server') ?? '?'}.${textAt(item, 'tool') ?? '?'} (${textAt(item, 'status') ?? ''})\n`;
      case 'web_search':
        return `· web search: ${oneLine(textAt(item, 'query') ?? '')}\n`;
      case 'todo_list':
        return listAt(item, 'items')
          .map((todo) => `· [${at(todo, 'completed') === true ? 'x' : ' '}] ${textAt(todo, 'text') ?? ''}\n`)
          .join('');
      case 'error':
        return `! ${textAt(item, 'message') ?? ''}\n`;
      default:
        return '';
    }
  }

  report(run: FinishedRun): AgentReport {
    const report: AgentReport = { finalMessage: finalMessageOf(this.lastMessage, run), failure: this.failure(run) };
    if (this.threadId !== null) report.agentSessionId = this.threadId;
    if (this.tokens !== undefined) report.tokens = this.tokens;
    return report;
  }

  private failure(run: FinishedRun): HarnessFailure | null {
    const { result } = run;
    if (this.failedWith === null && result.exitCode === 0) return null;
    if (result.exitCode === null && this.failedWith === null) return null; // a signal: the loop records it
    const stderr = result.stderrTail.split('\n').filter((line) => !line.startsWith('WARNING:') && !/^\d{4}-\d\d-\d\dT\S+ (ERROR|WARN|INFO)/.test(line)).join('\n');
    if (/not inside a trusted directory/i.test(stderr)) {
      return { kind: 'hard', code: 'E_HARNESS_FATAL', message: `Codex refuses to run outside a git repository: add --skip-git-repo-check to harnesses.<name>.args (${excerpt(lastLine(stderr))})` };
    }
    const said = this.failedWith ?? this.lastError ?? [lastLine(stderr), ...run.plainLines.slice(-3)].join('\n');
    return classifyFailureText(said, CODEX_AGENT, run.endedAtMs);
  }
}
