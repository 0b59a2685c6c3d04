import { mkdirSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { listenScripted, sendJson, stderrLog } from './scripted-server.js';
import type { JsonRequest } from './scripted-server.js';

/**
 * A scripted stand-in for the Gemini API (`POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`,
 * server-sent events), for running the real Gemini CLI in tests with GOOGLE_GEMINI_BASE_URL
 * pointing here and the API-key auth chosen in settings.json (see `writeGeminiHome`). It listens
 * on 127.0.0.1 only, on a random port.
 *
 * Each streamed request is one model turn of Gemini's loop and is answered from the script, in
 * order: text, tool calls (`run_shell_command`, `write_file`, run by Gemini in the workdir) or an
 * HTTP error in Google's error shape. Requests Gemini makes on its own (a plain `generateContent`
 * such as the `auto` model's router call or a next-speaker check, `countTokens`) get a fixed JSON
 * answer and are recorded as `side`, so a test can see they happened. Every request is recorded;
 * anything else gets 404 and is reported on stderr.
 */

export type ScriptPart = { type: 'text'; text: string } | { type: 'call'; name: string; args: Record<string, unknown> };

export interface ScriptResponse {
  parts: ScriptPart[];
  usage?: { input: number; output: number };
}

export interface ScriptError {
  /** HTTP status: 401 a refused key, 429 quota or rate limit, 503 overload, … */
  status: number;
  message?: string;
}

/** One answer to a model turn; a function sees the request (e.g. to read paths from the prompt). */
export type ScriptTurn = ScriptResponse | ScriptError | ((request: RecordedRequest) => ScriptResponse | ScriptError);

export interface RecordedRequest extends JsonRequest {
  /** `turn` (a scripted streamGenerateContent call), `side` (generateContent, countTokens) or `other`. */
  role: 'turn' | 'side' | 'other';
  /** The model named in the path, e.g. `gemini-2.5-flash`. */
  model: string | null;
}

export interface GeminiServer {
  /** `http://127.0.0.1:<port>`, for GOOGLE_GEMINI_BASE_URL. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** The scripted turns answered so far, in order. */
  turns(): RecordedRequest[];
  /** Scripted turns not yet used. */
  remainingTurns(): number;
  close(): Promise<void>;
}

/** Google's `status` word for an HTTP status, as the real API sends it. */
const STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** The model the tests select: naming one skips Gemini's router call of the `auto` model. */
export const GEMINI_TEST_MODEL = 'gemini-2.5-flash';

export const say = (text: string): ScriptPart => ({ type: 'text', text });
export const shell = (command: string, description = 'Run a command'): ScriptPart => ({
  type: 'call',
  name: 'run_shell_command',
  args: { command, description },
});
export const writeFile = (filePath: string, content: string): ScriptPart => ({
  type: 'call',
  name: 'write_file',
  args: { file_path: filePath, content },
});
export const reply = (...parts: ScriptPart[]): ScriptResponse => ({ parts });
export const apiError = (status: number, message?: string): ScriptError => ({
  status,
  ...(message === undefined ? {} : { message }),
});

const MODEL_PATH = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

export async function startGeminiServer(
  script: ScriptTurn[],
  options: { log?: (line: string) => void } = {},
): Promise<GeminiServer> {
  const log = options.log ?? stderrLog('gemini-server');
  const requests: RecordedRequest[] = [];
  const pending = [...script];

  const server = await listenScripted({
    request(incoming, res) {
      const match = incoming.method === 'POST' ? MODEL_PATH.exec(incoming.path) : null;
      const method = match?.[2];
      const role: RecordedRequest['role'] =
        method === 'streamGenerateContent' ? 'turn' : method === undefined ? 'other' : 'side';
      const request: RecordedRequest = { ...incoming, role, model: match?.[1] ?? null };
      requests.push(request);
      if (role === 'other') {
        log(`unexpected ${request.method} ${request.url}`);
        sendError(res, { status: 404, message: `no such endpoint in the test server: ${request.path}` });
        return;
      }
      if (method === 'countTokens') {
        sendJson(res, 200, { totalTokens: 100 });
        return;
      }
      if (role === 'side') {
        // Gemini's own questions want JSON: the router a model choice, the next-speaker check a speaker.
        sendJson(
          res,
          200,
          responseChunk([{ text: '{"reasoning": "scripted", "model_choice": "flash", "next_speaker": "user"}' }], {
            input: 10,
            output: 5,
          }),
        );
        return;
      }
      const next = pending.shift();
      if (next === undefined) {
        log('a model turn beyond the script');
        sendError(res, { status: 500, message: 'the test script has no more turns' });
        return;
      }
      const answer = typeof next === 'function' ? next(request) : next;
      if ('status' in answer) sendError(res, answer);
      else sendTurn(res, answer);
    },
    unreadable(error, res) {
      log(`bad request: ${String(error)}`);
      sendError(res, { status: 400, message: 'unreadable request' });
    },
  });
  return {
    url: server.origin,
    requests,
    turns: () => requests.filter((request) => request.role === 'turn'),
    remainingTurns: () => pending.length,
    close: () => server.close(),
  };
}

/** The text of every user part of a turn (the prompt wiggum wrote to Gemini's stdin is among them). */
export function userText(request: RecordedRequest): string {
  return contentsOf(request)
    .filter((content) => content['role'] === 'user')
    .flatMap((content) => partsOf(content))
    .flatMap((part) => (typeof part['text'] === 'string' ? [part['text']] : []))
    .join('\n');
}

/** What Gemini sent back for the tool calls of the previous turn (the `response` of each functionResponse). */
export function toolResponses(request: RecordedRequest): Record<string, unknown>[] {
  const last = contentsOf(request).at(-1);
  if (last === undefined) return [];
  return partsOf(last).flatMap((part) => {
    const call = part['functionResponse'];
    return isRecord(call) && isRecord(call['response']) ? [call['response']] : [];
  });
}

/**
 * A ~/.gemini/settings.json that makes Gemini use the API key (GEMINI_API_KEY) against
 * GOOGLE_GEMINI_BASE_URL, send no usage statistics, check for no update, and make one attempt
 * per request (its own retries take minutes; wiggum's retry is what is tested).
 */
export function writeGeminiHome(home: string): string {
  const dir = join(home, '.gemini');
  mkdirSync(dir, { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    general: { enableAutoUpdate: false, maxAttempts: 1 },
  };
  writeFileSync(join(dir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return home;
}

function sendError(res: ServerResponse, error: ScriptError): void {
  const status = STATUSES[error.status] ?? 'UNKNOWN';
  sendJson(res, error.status, {
    error: { code: error.status, message: error.message ?? `scripted ${error.status}`, status, details: [] },
  });
}

/**
 * A streamed answer: each text in two chunks (the client has to join them, as with the real
 * API), each call in one; the last chunk carries the finish reason and the turn's token counts.
 */
function sendTurn(res: ServerResponse, answer: ScriptResponse): void {
  const pieces = answer.parts.flatMap((part): Record<string, unknown>[] =>
    part.type === 'text'
      ? split(part.text).map((text) => ({ text }))
      : [{ functionCall: { name: part.name, args: part.args } }],
  );
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  pieces.forEach((piece, index) => {
    const last = index === pieces.length - 1;
    const chunk = responseChunk([piece], last ? (answer.usage ?? { input: 1000, output: 20 }) : null);
    res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  });
  res.end();
}

function responseChunk(
  parts: Record<string, unknown>[],
  usage: { input: number; output: number } | null,
): Record<string, unknown> {
  const candidate = {
    content: { role: 'model', parts },
    index: 0,
    ...(usage === null ? {} : { finishReason: 'STOP' }),
  };
  const usageMetadata =
    usage === null
      ? {}
      : {
          usageMetadata: {
            promptTokenCount: usage.input,
            candidatesTokenCount: usage.output,
            totalTokenCount: usage.input + usage.output,
          },
        };
  return { candidates: [candidate], ...usageMetadata, modelVersion: GEMINI_TEST_MODEL };
}

function split(text: string): string[] {
  if (text.length < 2) return [text];
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function contentsOf(request: RecordedRequest): Record<string, unknown>[] {
  const contents = request.body?.['contents'];
  return Array.isArray(contents) ? (contents as Record<string, unknown>[]) : [];
}

function partsOf(content: Record<string, unknown>): Record<string, unknown>[] {
  const parts = content['parts'];
  return Array.isArray(parts) ? (parts as Record<string, unknown>[]) : [];
}
