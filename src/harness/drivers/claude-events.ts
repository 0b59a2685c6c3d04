/**
 * Claude Code's `--output-format stream-json --verbose` events (Amp's `--stream-json` is the same
 * format) turned into AgentEvents: the parts both CLIs share. Each driver adds its own reading of
 * the closing `result` event and of failures.
 */
import type { AgentEvent, Usage } from './agent-event.js';
import type { JsonEvent } from './json-events.js';
import { isRecord, num, record, str } from './json-events.js';
import { outputText } from './json-lines-reader.js';

/** The events of an assistant or user message: text, tool calls and tool results. */
export function messageEvents(event: JsonEvent): AgentEvent[] {
  const type = str(event['type']);
  // An API error comes as a synthetic assistant message, then a result event with the same text: show it once.
  if (type === 'assistant' && event['is_api_error_message'] !== true) return blocks(event).flatMap(assistantBlock);
  if (type === 'user') return blocks(event).flatMap(toolResult);
  return [];
}

function blocks(event: JsonEvent): Record<string, unknown>[] {
  const content = record(event['message'])['content'];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function assistantBlock(block: Record<string, unknown>): AgentEvent[] {
  if (block['type'] === 'text') return [{ type: 'text', text: str(block['text']) ?? '' }];
  if (block['type'] === 'thinking') return [{ type: 'thinking', text: str(block['thinking']) ?? '' }];
  if (block['type'] === 'tool_use') {
    const name = str(block['name']) ?? 'tool';
    return [{ type: 'tool_use', name, summary: toolSummary(record(block['input'])) }];
  }
  return [];
}

/** The one thing worth seeing about a tool call: the command, the file, the pattern. */
function toolSummary(input: Record<string, unknown>): string {
  const main =
    str(input['command']) ??
    str(input['file_path']) ??
    str(input['notebook_path']) ??
    str(input['pattern']) ??
    str(input['url']) ??
    str(input['description']);
  return main ?? JSON.stringify(input);
}

function toolResult(block: Record<string, unknown>): AgentEvent[] {
  if (block['type'] !== 'tool_result') return [];
  return [{ type: 'tool_result', ok: block['is_error'] !== true, output: outputText(block['content']) }];
}

/** The assistant's text blocks of a message, joined (Amp's final message when it sends no result). */
export function messageText(event: JsonEvent): string | null {
  const texts = blocks(event)
    .filter((block) => block['type'] === 'text')
    .map((block) => str(block['text']) ?? '');
  return texts.length === 0 ? null : texts.join('\n');
}

/**
 * The usage of a `usage` object (a message's or the result's): input counts the cached tokens too,
 * as the model read them. Null when it gives no `input_tokens`.
 */
export function usageOf(usage: unknown, costUsd: number | null = null): Partial<Usage> | null {
  const fields = record(usage);
  const input = num(fields['input_tokens']);
  if (input === null) return null;
  const cacheRead = num(fields['cache_read_input_tokens']) ?? 0;
  const cacheWrite = num(fields['cache_creation_input_tokens']) ?? 0;
  const found: Partial<Usage> = {
    inputTokens: input + cacheRead + cacheWrite,
    outputTokens: num(fields['output_tokens']) ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
  if (costUsd !== null) found.costUsd = costUsd;
  return found;
}

/** The facts of a result event for its summary line: turns and duration. */
export function resultFacts(event: JsonEvent): string[] {
  const facts: string[] = [];
  const turns = num(event['num_turns']);
  const durationMs = num(event['duration_ms']);
  if (turns !== null) facts.push(`${turns} turn${turns === 1 ? '' : 's'}`);
  if (durationMs !== null) facts.push(`${(durationMs / 1000).toFixed(1)} s`);
  return facts;
}

/** The error texts of a result (`result`, else its `errors` list). */
export function resultText(event: JsonEvent): string {
  const errors = Array.isArray(event['errors'])
    ? event['errors'].filter((e): e is string => typeof e === 'string')
    : [];
  return str(event['result']) ?? errors.join('; ');
}
