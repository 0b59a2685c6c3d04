import type { AgentEvent } from './agent-event.js';
import type { HarnessDriver } from './driver.js';
import { lastLine } from './driver.js';
import type { AgentFacts } from './failure-text.js';
import { classifyFailureText, excerpt } from './failure-text.js';
import { isRecord } from './json-events.js';
import type { AgentStreamParser, FinishedRun, JsonEvent } from './json-lines-reader.js';
import { at, jsonLinesReader, listAt, numberAt, textAt } from './json-lines-reader.js';
import { oneLine } from './render-event.js';

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
  authFix:
    'run `codex login` as the user wiggum runs as, or set OPENAI_API_KEY (it is in harness.env_allowlist), or fix the model provider in $CODEX_HOME/config.toml',
};

export const codexDriver: HarnessDriver = {
  kind: 'codex',
  installHint: 'install it with npm i -g @openai/codex',
  createReader: () => jsonLinesReader(new CodexParser()),
};

class CodexParser implements AgentStreamParser {
  readonly agent = CODEX_AGENT.name;
  private failedWith: string | null = null;
  private lastError: string | null = null;

  event(event: JsonEvent): AgentEvent[] {
    switch (textAt(event, 'type')) {
      case 'thread.started':
        return [{ type: 'session', sessionId: textAt(event, 'thread_id') }];
      case 'item.started':
        return textAt(event, 'item', 'type') === 'command_execution'
          ? [{ type: 'tool_use', name: 'shell', summary: textAt(event, 'item', 'command') ?? '' }]
          : [];
      case 'item.completed':
        return isRecord(event['item']) ? item(event['item']) : [];
      case 'turn.completed': {
        const input = numberAt(event, 'usage', 'input_tokens');
        const output = numberAt(event, 'usage', 'output_tokens');
        if (input === null && output === null) return [];
        return [
          {
            type: 'usage',
            usage: {
              inputTokens: input ?? 0,
              outputTokens: output ?? 0,
              cacheReadTokens: numberAt(event, 'usage', 'cached_input_tokens') ?? 0,
              cacheWriteTokens: numberAt(event, 'usage', 'cache_write_input_tokens') ?? 0,
            },
          },
        ];
      }
      case 'turn.failed':
        this.failedWith = textAt(event, 'error', 'message') ?? this.lastError ?? 'the turn failed';
        return [{ type: 'notice', text: `! turn failed: ${this.failedWith}` }];
      case 'error': {
        // "Reconnecting... 1/5 (…)" notices come this way too; only the last one before the end counts.
        const message = textAt(event, 'message') ?? '';
        this.lastError = message;
        return [{ type: 'notice', text: `! ${message}` }];
      }
      case null:
      default:
        return [];
    }
  }

  finish(run: FinishedRun): AgentEvent[] {
    const { result } = run;
    if (this.failedWith === null && result.exitCode === 0) return [];
    if (result.exitCode === null && this.failedWith === null) return []; // a signal: the loop records it
    const stderr = result.stderrTail
      .split('\n')
      .filter((line) => !line.startsWith('WARNING:') && !/^\d{4}-\d\d-\d\dT\S+ (ERROR|WARN|INFO)/.test(line))
      .join('\n');
    if (/not inside a trusted directory/i.test(stderr)) {
      return [
        {
          type: 'error',
          said: '',
          kind: 'fatal',
          message: `Codex refuses to run outside a git repository: add --skip-git-repo-check to harnesses.<name>.args (${excerpt(lastLine(stderr))})`,
        },
      ];
    }
    const said = this.failedWith ?? this.lastError ?? [lastLine(stderr), ...run.plainLines.slice(-3)].join('\n');
    const error = classifyFailureText(said, CODEX_AGENT, run.endedAtMs);
    return error === null ? [] : [{ type: 'error', said: '', ...error }];
  }
}

function item(entry: JsonEvent): AgentEvent[] {
  switch (textAt(entry, 'type')) {
    case 'agent_message': {
      const text = textAt(entry, 'text') ?? '';
      return [
        { type: 'text', text },
        { type: 'final_message', text },
      ];
    }
    case 'reasoning':
      return [{ type: 'thinking', text: textAt(entry, 'text') ?? '' }];
    case 'command_execution': {
      const exitCode = numberAt(entry, 'exit_code');
      return [{ type: 'tool_result', ok: exitCode === 0, output: textAt(entry, 'aggregated_output') ?? '', exitCode }];
    }
    case 'file_change':
      return listAt(entry, 'changes').map((change): AgentEvent => ({
        type: 'tool_use',
        name: 'edit',
        summary: `${textAt(change, 'kind') ?? 'change'} ${textAt(change, 'path') ?? '?'}`,
      }));
    case 'mcp_tool_call':
      return [
        {
          type: 'tool_use',
          name: `${textAt(entry, 'server') ?? '?'}.${textAt(entry, 'tool') ?? '?'}`,
          summary: textAt(entry, 'status') ?? '',
        },
      ];
    case 'web_search':
      return [{ type: 'tool_use', name: 'web_search', summary: oneLine(textAt(entry, 'query') ?? '') }];
    case 'todo_list':
      return [
        {
          type: 'notice',
          text: listAt(entry, 'items')
            .map((todo) => `· [${at(todo, 'completed') === true ? 'x' : ' '}] ${textAt(todo, 'text') ?? ''}`)
            .join('\n'),
        },
      ];
    case 'error':
      return [{ type: 'notice', text: `! ${textAt(entry, 'message') ?? ''}` }];
    case null:
    default:
      return [];
  }
}
