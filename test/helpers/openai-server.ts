import { mkdirSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { listenScripted, sendJson, startEvents, stderrLog } from './scripted-server.js';
import type { JsonRequest } from './scripted-server.js';

/**
 * A scripted stand-in for the OpenAI Responses API (`POST /v1/responses`, streamed as server-sent
 * events), for running the real Codex CLI in tests with a `model_provider` whose `base_url` points
 * here (see `writeCodexHome`). It listens on 127.0.0.1 only, on a random port.
 *
 * Each request to /v1/responses is one model turn of Codex's loop and is answered from the script,
 * in order: text (an assistant message), `exec_command` calls (Codex's shell tool, run by Codex
 * in the workdir) or an HTTP error. Every request is recorded for assertions; anything else gets 404
 * and is reported on stderr.
 */

export type ScriptItem = { type: 'text'; text: string } | { type: 'exec'; cmd: string };

export interface ScriptResponse {
  output: ScriptItem[];
  usage?: { input: number; output: number };
}

export interface ScriptError {
  /** HTTP status: 429 rate limit, 401 bad key, 500 server error, … */
  status: number;
  /** The error `code` in the body (rate_limit_exceeded, invalid_api_key, …); derived from the status when left out. */
  code?: string;
  message?: string;
}

/** One answer to a model turn; a function sees the request (e.g. to read paths from the prompt). */
export type ScriptTurn = ScriptResponse | ScriptError | ((request: RecordedRequest) => ScriptResponse | ScriptError);

export interface RecordedRequest extends JsonRequest {
  /** `turn` (a scripted /v1/responses call) or `other`. */
  role: 'turn' | 'other';
}

export interface OpenAIServer {
  /** `http://127.0.0.1:<port>/v1`, for a provider's `base_url`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** The scripted turns answered so far, in order. */
  turns(): RecordedRequest[];
  /** Scripted turns not yet used. */
  remainingTurns(): number;
  close(): Promise<void>;
}

const CODES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_api_key',
  403: 'forbidden',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  503: 'server_error',
};

export const say = (text: string): ScriptItem => ({ type: 'text', text });
export const exec = (cmd: string): ScriptItem => ({ type: 'exec', cmd });
export const reply = (...output: ScriptItem[]): ScriptResponse => ({ output });
export const apiError = (status: number, message?: string, code?: string): ScriptError => ({
  status,
  ...(message === undefined ? {} : { message }),
  ...(code === undefined ? {} : { code }),
});

export async function startOpenAIServer(
  script: ScriptTurn[],
  options: { log?: (line: string) => void } = {},
): Promise<OpenAIServer> {
  const log = options.log ?? stderrLog('openai-server');
  const requests: RecordedRequest[] = [];
  const pending = [...script];
  let responseCount = 0;

  const server = await listenScripted({
    request(incoming, res) {
      const isTurn = incoming.method === 'POST' && incoming.path === '/v1/responses';
      const request: RecordedRequest = { ...incoming, role: isTurn ? 'turn' : 'other' };
      requests.push(request);
      if (!isTurn) {
        log(`unexpected ${request.method} ${request.url}`);
        sendJson(res, 404, { error: { message: `no such endpoint: ${request.path}`, type: 'invalid_request_error' } });
        return;
      }
      const next = pending.shift();
      if (next === undefined) {
        log('a model turn beyond the script');
        sendJson(res, 500, { error: { message: 'the test script has no more turns', type: 'server_error' } });
        return;
      }
      const answer = typeof next === 'function' ? next(request) : next;
      if ('status' in answer) {
        const code = answer.code ?? CODES[answer.status] ?? 'server_error';
        sendJson(res, answer.status, {
          error: { message: answer.message ?? `scripted ${answer.status}`, type: code, code },
        });
        return;
      }
      responseCount += 1;
      sendTurn(res, `resp_${responseCount}`, answer);
    },
    unreadable(error, res) {
      log(`bad request: ${String(error)}`);
      sendJson(res, 400, { error: { message: 'unreadable request', type: 'invalid_request_error' } });
    },
  });
  return {
    url: `${server.origin}/v1`,
    requests,
    turns: () => requests.filter((request) => request.role === 'turn'),
    remainingTurns: () => pending.length,
    close: () => server.close(),
  };
}

/** The text of every user message of a turn (the prompt wiggum wrote to Codex's stdin is among them). */
export function inputText(request: RecordedRequest): string {
  const input = request.body?.['input'];
  if (!Array.isArray(input)) return '';
  const texts: string[] = [];
  for (const item of input as Record<string, unknown>[]) {
    if (item['type'] !== 'message' || item['role'] !== 'user' || !Array.isArray(item['content'])) continue;
    for (const part of item['content'] as Record<string, unknown>[])
      if (typeof part['text'] === 'string') texts.push(part['text']);
  }
  return texts.join('\n');
}

/** What Codex reported back for the shell calls of the previous turn (`Process exited with code N` …). */
export function callOutputs(request: RecordedRequest): string[] {
  const input = request.body?.['input'];
  if (!Array.isArray(input)) return [];
  return (input as Record<string, unknown>[])
    .filter((item) => item['type'] === 'function_call_output')
    .map((item) => String(item['output']));
}

/**
 * A CODEX_HOME whose config sends every model call to `server` (wire_api "responses"), with the
 * key from OPENAI_API_KEY, Codex's own retries off (so wiggum's retry is what is tested) and
 * nothing else reaching the network.
 */
export function writeCodexHome(dir: string, server: OpenAIServer): string {
  mkdirSync(dir, { recursive: true });
  const config = [
    'model = "test-model"',
    'model_provider = "scripted"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = "${server.url}"`,
    'wire_api = "responses"',
    'env_key = "OPENAI_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'config.toml'), config);
  return dir;
}

function sendTurn(res: ServerResponse, id: string, answer: ScriptResponse): void {
  const event = startEvents(res);
  event({ type: 'response.created', response: { id } });
  answer.output.forEach((item, index) => {
    const done =
      item.type === 'text'
        ? {
            type: 'message',
            role: 'assistant',
            id: `msg_${id}_${index}`,
            content: [{ type: 'output_text', text: item.text }],
          }
        : {
            type: 'function_call',
            id: `fc_${id}_${index}`,
            call_id: `call_${id}_${index}`,
            name: 'exec_command',
            arguments: JSON.stringify({ cmd: item.cmd }),
          };
    event({ type: 'response.output_item.done', output_index: index, item: done });
  });
  const input = answer.usage?.input ?? 1000;
  const output = answer.usage?.output ?? 20;
  event({
    type: 'response.completed',
    response: {
      id,
      usage: {
        input_tokens: input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: input + output,
      },
    },
  });
  res.end();
}
