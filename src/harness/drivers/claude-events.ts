/**
 * Claude Code's `--output-format stream-json --verbose` events, rendered for people.
 */
import type { JsonEvent } from './json-events.js';
import { isRecord, num, record, str } from './json-events.js';

const SHOWN_CHARS = 400;

/** How an event looks in the live stream: readable lines, never raw JSON. Empty for events not worth showing. */
export function renderEvent(event: JsonEvent): string {
  const type = str(event['type']);
  if (type === 'system') return renderSystem(event);
  // An API error comes as a synthetic assistant message, then a result event with the same text: show it once.
  if (type === 'assistant') return event['is_api_error_message'] === true ? '' : blocks(event).map(renderAssistantBlock).join('');
  if (type === 'user') return blocks(event).map(renderToolResult).join('');
  if (type === 'rate_limit_event') {
    const info = record(event['rate_limit_info']);
    if (info['status'] !== 'rejected') return '';
    const resetsAt = num(info['resetsAt']);
    return `⏸ usage limit reached (${str(info['rateLimitType']) ?? 'limit'})${resetsAt === null ? '' : `, resets at ${new Date(resetsAt * 1000).toISOString()}`}\n`;
  }
  if (type === 'result') return renderResult(event);
  return '';
}

function renderSystem(event: JsonEvent): string {
  const subtype = str(event['subtype']);
  if (subtype === 'init') {
    const version = str(event['claude_code_version']);
    return `● Claude Code${version === null ? '' : ` ${version}`} · model ${str(event['model']) ?? '?'} · session ${str(event['session_id']) ?? '?'}\n`;
  }
  if (subtype === 'api_retry') {
    const delay = num(event['retry_delay_ms']);
    return `⟳ API error ${String(num(event['error_status']) ?? str(event['error']) ?? '')} (${str(event['error']) ?? 'error'}): Claude Code retries (${num(event['attempt']) ?? '?'}/${num(event['max_retries']) ?? '?'})${delay === null ? '' : ` in ${(delay / 1000).toFixed(1)} s`}\n`;
  }
  return '';
}

function blocks(event: JsonEvent): Record<string, unknown>[] {
  const content = record(event['message'])['content'];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function renderAssistantBlock(block: Record<string, unknown>): string {
  if (block['type'] === 'text') {
    const text = str(block['text']) ?? '';
    return text.trim() === '' ? '' : `${text.trimEnd()}\n`;
  }
  if (block['type'] === 'tool_use') {
    const name = str(block['name']) ?? 'tool';
    return `→ ${name}: ${shorten(toolSummary(name, record(block['input'])))}\n`;
  }
  return '';
}

/** The one thing worth seeing about a tool call: the command, the file, the pattern. */
function toolSummary(name: string, input: Record<string, unknown>): string {
  const main = str(input['command']) ?? str(input['file_path']) ?? str(input['notebook_path']) ?? str(input['pattern']) ?? str(input['url']) ?? str(input['description']);
  return main ?? JSON.stringify(input);
}

function renderToolResult(block: Record<string, unknown>): string {
  if (block['type'] !== 'tool_result') return '';
  const content = block['content'];
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.filter(isRecord).map((part) => str(part['text']) ?? '').join('\n') : '';
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const marker = block['is_error'] === true ? '✗' : '←';
  if (lines.length === 0) return `  ${marker} (no output)\n`;
  const more = lines.length > 1 ? ` (+${lines.length - 1} more lines)` : '';
  return `  ${marker} ${shorten(lines[0] ?? '')}${more}\n`;
}

function renderResult(event: JsonEvent): string {
  const facts: string[] = [];
  const turns = num(event['num_turns']);
  const durationMs = num(event['duration_ms']);
  const cost = num(event['total_cost_usd']);
  const usage = record(event['usage']);
  if (turns !== null) facts.push(`${turns} turn${turns === 1 ? '' : 's'}`);
  if (durationMs !== null) facts.push(`${(durationMs / 1000).toFixed(1)} s`);
  if (cost !== null && cost > 0) facts.push(`$${cost.toFixed(4)}`);
  const input = num(usage['input_tokens']) ?? 0;
  const output = num(usage['output_tokens']) ?? 0;
  if (input + output > 0) facts.push(`${input} in / ${output} out tokens`);
  if (event['is_error'] === true) {
    const said = str(event['result']) ?? (Array.isArray(event['errors']) ? event['errors'].filter((e): e is string => typeof e === 'string').join('; ') : '');
    // subtype says "success" even for an API error; terminal_reason (api_error, max_turns, …) says what happened.
    const reason = str(event['terminal_reason']) ?? str(event['subtype']) ?? 'error';
    return `✗ Claude Code ended with an error (${[reason, ...facts].join(', ')})${said === '' ? '' : `: ${said}`}\n`;
  }
  return `✓ Claude Code finished${facts.length === 0 ? '' : ` (${facts.join(', ')})`}\n`;
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return oneLine.length > SHOWN_CHARS ? `${oneLine.slice(0, SHOWN_CHARS)}…` : oneLine;
}

/**
 * The input tokens of a usage object (`message.usage` or the result's `usage`), cached ones
 * included: they are input the model read too. Null when it gives no `input_tokens`.
 */
export function inputTokens(usage: unknown): number | null {
  const fields = record(usage);
  const input = num(fields['input_tokens']);
  if (input === null) return null;
  return input + (num(fields['cache_creation_input_tokens']) ?? 0) + (num(fields['cache_read_input_tokens']) ?? 0);
}
