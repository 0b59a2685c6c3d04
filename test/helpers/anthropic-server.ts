import type { ServerResponse } from 'node:http';
import { listenScripted, sendJson, startEvents, stderrLog } from './scripted-server.js';
import type { JsonRequest } from './scripted-server.js';

/**
 * A scripted stand-in for the Anthropic Messages API, for running the real Claude Code CLI in
 * tests with `ANTHROPIC_BASE_URL` pointing here. It listens on 127.0.0.1 only.
 *
 * The agent's main loop (requests that offer tools) is answered turn by turn from a script; side
 * requests Claude Code makes on its own (title or summary generation without tools, token
 * counting, model listing, anything else) get a fixed, harmless answer, so a run is deterministic.
 * Every request is recorded for assertions, and unexpected endpoints are reported on stderr.
 */

export type ScriptBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: Record<string, unknown> };

export interface ScriptResponse {
  content: ScriptBlock[];
  /** Defaults to `tool_use` when a tool_use block is present, else `end_turn`. */
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  usage?: { input: number; output: number };
}

export interface ScriptError {
  /** HTTP status: 429 rate_limit_error, 529 overloaded_error, 401 authentication_error, … */
  status: number;
  /** The error `type` in the body; derived from the status when left out. */
  errorType?: string;
  message?: string;
  headers?: Record<string, string>;
}

/** The connection is closed without an answer, as a network failure would. */
export interface ScriptDrop {
  drop: true;
}

export type ScriptAnswer = ScriptResponse | ScriptError | ScriptDrop;

/** One answer to a main-loop request; a function sees the request (e.g. to read paths from the prompt). */
export type ScriptTurn = ScriptAnswer | ((request: RecordedRequest) => ScriptAnswer);

export interface RecordedRequest extends JsonRequest {
  /** `main` (scripted turn), `side` (a tool-less /v1/messages call), `other` (any other endpoint). */
  role: 'main' | 'side' | 'other';
}

export interface AnthropicServer {
  /** `http://127.0.0.1:<port>`, for ANTHROPIC_BASE_URL. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** The main-loop requests answered so far, in order. */
  mainRequests(): RecordedRequest[];
  /** Scripted turns not yet used. */
  remainingTurns(): number;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const MODEL = 'claude-test-model';

export async function startAnthropicServer(
  script: ScriptTurn[],
  options: { log?: (line: string) => void } = {},
): Promise<AnthropicServer> {
  const log = options.log ?? stderrLog('anthropic-server');
  const requests: RecordedRequest[] = [];
  const turns = [...script];
  let messageCount = 0;

  const server = await listenScripted({
    request(request, res) {
      const { path, body } = request;
      const isMessages = request.method === 'POST' && path === '/v1/messages';
      const role: RecordedRequest['role'] = isMessages ? (hasTools(body) ? 'main' : 'side') : 'other';
      const recorded: RecordedRequest = { ...request, role };
      requests.push(recorded);
      messageCount += 1;
      const id = `msg_test_${String(messageCount).padStart(4, '0')}`;
      if (role === 'main') {
        const next = turns.shift();
        if (next === undefined) {
          log(
            `main-loop request ${requests.filter((r) => r.role === 'main').length} beyond the script: answering with a plain end_turn`,
          );
          respond(res, recorded, id, { content: [{ type: 'text', text: 'The script has no more turns.' }] });
          return;
        }
        const turn = typeof next === 'function' ? next(recorded) : next;
        respond(res, recorded, id, turn);
        return;
      }
      if (role === 'side') {
        respond(res, recorded, id, { content: [{ type: 'text', text: 'Scripted task' }] });
        return;
      }
      if (request.method === 'POST' && path === '/v1/messages/count_tokens') {
        sendJson(res, 200, { input_tokens: 100 });
        return;
      }
      if (request.method === 'GET' && path === '/v1/models') {
        sendJson(res, 200, {
          data: [{ type: 'model', id: MODEL, display_name: 'Test model', created_at: '2025-01-01T00:00:00Z' }],
          has_more: false,
          first_id: MODEL,
          last_id: MODEL,
        });
        return;
      }
      if (path === '/api/hello') {
        // A reachability check Claude Code makes unless CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is set.
        sendJson(res, 200, { message: 'hello' });
        return;
      }
      log(`unexpected request ${request.method} ${request.url}: answering 404`);
      sendJson(res, 404, {
        type: 'error',
        error: { type: 'not_found_error', message: `no such endpoint in the test server: ${path}` },
      });
    },
    unreadable(error, res) {
      log(`could not read a request: ${String(error)}`);
      res.destroy();
    },
  });

  return {
    url: server.origin,
    requests,
    mainRequests: () => requests.filter((request) => request.role === 'main'),
    remainingTurns: () => turns.length,
    close: () => server.close(),
  };
}

/** A response turn: text blocks and tool calls in order. */
export function reply(...content: (string | ScriptBlock)[]): ScriptResponse {
  return { content: content.map((block) => (typeof block === 'string' ? { type: 'text', text: block } : block)) };
}

export function bash(command: string, description = 'Run a command'): ScriptBlock {
  return { type: 'tool_use', name: 'Bash', input: { command, description } };
}

export function write(filePath: string, content: string): ScriptBlock {
  return { type: 'tool_use', name: 'Write', input: { file_path: filePath, content } };
}

export function apiError(status: number, message?: string, headers?: Record<string, string>): ScriptError {
  return { status, ...(message === undefined ? {} : { message }), ...(headers === undefined ? {} : { headers }) };
}

/** The user's text of a request: every text block of every user message, joined. */
export function userText(request: RecordedRequest): string {
  const messages = request.body?.['messages'];
  if (!Array.isArray(messages)) return '';
  const parts: string[] = [];
  for (const message of messages as { role?: unknown; content?: unknown }[]) {
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') parts.push(message.content);
    else if (Array.isArray(message.content)) {
      for (const block of message.content as { type?: unknown; text?: unknown; content?: unknown }[]) {
        if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
        if (block.type === 'tool_result')
          parts.push(typeof block.content === 'string' ? block.content : JSON.stringify(block.content));
      }
    }
  }
  return parts.join('\n');
}

type WireBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function respond(res: ServerResponse, request: RecordedRequest, id: string, turn: ScriptAnswer): void {
  if ('drop' in turn) {
    res.socket?.destroy();
    return;
  }
  if ('status' in turn) {
    const type = turn.errorType ?? ERROR_TYPES[turn.status] ?? 'api_error';
    sendJson(
      res,
      turn.status,
      { type: 'error', error: { type, message: turn.message ?? type.replace(/_/g, ' ') } },
      { 'request-id': `req_${id}`, ...turn.headers },
    );
    return;
  }
  const content = turn.content.map((block, index): WireBlock =>
    block.type === 'text'
      ? { type: 'text', text: block.text }
      : { type: 'tool_use', id: `toolu_${id}_${index}`, name: block.name, input: block.input },
  );
  const stopReason = turn.stopReason ?? (content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn');
  const usage = {
    input_tokens: turn.usage?.input ?? 100,
    output_tokens: turn.usage?.output ?? 20,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const model = typeof request.body?.['model'] === 'string' ? request.body['model'] : MODEL;
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
  if (request.body?.['stream'] !== true) {
    sendJson(res, 200, message);
    return;
  }
  const send = startEvents(res, { 'request-id': `req_${id}` });
  const event = (name: string, data: Record<string, unknown>): void => send({ type: name, ...data });
  event('message_start', {
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of split(block.text))
        event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    } else {
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      for (const piece of split(JSON.stringify(block.input)))
        event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  event('message_stop', {});
  res.end();
}

/** Splits text into two deltas, so the client has to join them as with a real stream. */
function split(text: string): string[] {
  if (text.length < 2) return [text];
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

function hasTools(body: Record<string, unknown> | null): boolean {
  const tools = body?.['tools'];
  return Array.isArray(tools) && tools.length > 0;
}
