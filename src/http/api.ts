import { relative } from 'node:path';
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import type { WiggumConfig } from '../config/config.js';
import type { DaemonStatus } from '../daemon/status.js';
import { FOLLOW_POLL_MS, LogPrinter, followTaskLogs } from '../inspect/log-follow.js';
import { describeTask } from '../inspect/task-status.js';
import type { Logger } from '../log/logger.js';
import { changeContext } from '../memory/pending-context.js';
import { TASK_ID_PATTERN } from '../task/vocabulary.js';
import type { Clock } from '../time/clock.js';
import { findTaskFile, findTaskIn, parsedTask } from '../vault/find-task.js';
import type { VaultLayout } from '../vault/layout.js';
import { sendTaskBack } from '../vault/send-back.js';
import { resumeTask, stopTask } from '../vault/task-controls.js';
import { UNAUTHORIZED, answerForError, envelope } from './envelope.js';
import type { ErrorAnswer } from './envelope.js';
import { pageHtml } from './page.js';
import { signInHtml } from './page-sign-in.js';
import { DEFAULT_LIMITS, Slots } from './request-limits.js';
import type { RequestLimits } from './request-limits.js';
import { contextBody, readBody, retryBody } from './request-body.js';
import { bearerOf } from './token.js';
import type { TokenGate } from './token.js';

export interface ApiDeps {
  layout: VaultLayout;
  config: WiggumConfig;
  gate: TokenGate;
  clock: Clock;
  logger: Logger;
  /**
   * What `wiggum status --json` prints, as JSON text. Called for every request: the caller shares one
   * reading between a burst of them (start-api.ts).
   */
  state: () => Promise<string>;
  /** The running daemon's own picture of its tasks (null: none runs here), for one task's state. */
  daemonStatus: () => DaemonStatus | null;
  /** The Prometheus exposition; null: no metrics here. */
  metrics: (() => Promise<{ contentType: string; body: string }>) | null;
  limits?: RequestLimits;
}

/** An error answer: the envelope as JSON, with its status. */
function fail(answer: ErrorAnswer, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(answer.body), {
    status: answer.status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

/** No site may show the page in a frame (clickjacking its buttons). */
const FRAMING = { 'Content-Security-Policy': "frame-ancestors 'none'", 'X-Frame-Options': 'DENY' };

/** An event stream silent this long gets a comment line, so that proxies keep it open. */
const KEEPALIVE_MS = 15_000;

/**
 * The daemon's HTTP API: the same views as `wiggum status`, `status ID` and `logs --follow`, and the
 * same effects as `stop`, `resume`, `retry` and `context` (the files stay the interface). Every
 * request but /healthz needs the bearer token; every error is one envelope; no answer carries a
 * secret, an environment value or the token. No CORS headers are ever sent, so a page on another
 * origin can neither read an answer nor send the token.
 */
export function createApi(deps: ApiDeps): Hono {
  const limits = deps.limits ?? DEFAULT_LIMITS;
  const requests = new Slots(limits.inFlight);
  const streams = new Slots(limits.streams);
  const app = new Hono();

  app.use('*', async (c, next) => {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
  });
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.use('*', async (c, next) => {
    // The page alone may carry its token in its URL: a browser cannot send a header when a person
    // opens a link. Everything else takes the header only, so a token never sits in an API URL.
    const presented =
      bearerOf(c.req.header('authorization')) ?? (c.req.path === '/' ? (c.req.query('token') ?? null) : null);
    if (!(await deps.gate.admits(presented))) {
      // A person opening the page without its token is told how, on a page holding no data.
      if (c.req.path === '/' && c.req.method === 'GET')
        return new Response(signInHtml(), {
          status: 401,
          headers: { 'Content-Type': 'text/html; charset=utf-8', 'WWW-Authenticate': 'Bearer', ...FRAMING },
        });
      return fail(UNAUTHORIZED, { 'WWW-Authenticate': 'Bearer' });
    }
    return next();
  });
  app.use('*', async (c, next) => {
    if (c.req.path.endsWith('/events')) return next();
    if (!requests.enter()) return busy('requests');
    try {
      return await next();
    } finally {
      requests.leave();
    }
  });
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: limits.bodyBytes,
      onError: () => fail(envelope(413, 'too_large', `a request body may be at most ${limits.bodyBytes} bytes`)),
    }),
  );
  const idChecked: MiddlewareHandler = async (c, next) => {
    if (!TASK_ID_PATTERN.test(c.req.param('id') ?? ''))
      return fail(envelope(400, 'bad_id', 'a task id is letters, digits, dots, dashes and underscores'));
    return next();
  };
  app.use('/api/v1/tasks/:id', idChecked);
  app.use('/api/v1/tasks/:id/*', idChecked);

  app.get('/', (c) => {
    // The page sets its own policy (its script and style by hash); framing is refused here, where a
    // page's own policy cannot.
    for (const [name, value] of Object.entries(FRAMING)) c.header(name, value);
    return c.html(pageHtml());
  });
  app.get('/metrics', async (c) => {
    if (deps.metrics === null) return fail(envelope(404, 'not_found', 'no metrics here'));
    const { contentType, body } = await deps.metrics();
    return c.body(body, 200, { 'Content-Type': contentType });
  });
  app.get('/api/v1/state', async (c) => c.body(await deps.state(), 200, { 'Content-Type': 'application/json' }));
  app.get('/api/v1/tasks/:id', async (c) => {
    const { layout } = deps;
    const found = await findTaskFile(c.req.param('id'), layout);
    const detail = await describeTask(found, layout, deps.daemonStatus(), true);
    return c.body(detail, 200, { 'Content-Type': 'application/json' });
  });
  app.get('/api/v1/tasks/:id/events', async (c) => {
    const { layout, config } = deps;
    const task = parsedTask(await findTaskFile(c.req.param('id'), layout), layout.root);
    if (!streams.enter()) return busy('event streams');
    const live = deps.daemonStatus()?.tasks.find((entry) => entry.id === task.id);
    const current = live?.harness ?? task.frontmatter.harness ?? config.harness.defaultName;
    return streamSSE(c, async (stream) => {
      try {
        let lastWriteMs = deps.clock.now();
        const send = async (text: string): Promise<void> => {
          lastWriteMs = deps.clock.now();
          await stream.writeSSE({ event: 'output', data: text.replace(/\r/g, '') });
        };
        const printer = new LogPrinter(layout, config, false, current ?? null, { output: send, header: send });
        const ended = await followTaskLogs(layout, {
          task: { id: task.id, file: task.file, sessionId: task.frontmatter.persistence_loop?.session },
          printer,
          pause: async () => {
            if (deps.clock.now() - lastWriteMs >= KEEPALIVE_MS) {
              lastWriteMs = deps.clock.now();
              await stream.write(': keepalive\n\n');
            }
            await stream.sleep(FOLLOW_POLL_MS);
            return !stream.aborted && !stream.closed;
          },
        });
        if (ended !== null) await stream.writeSSE({ event: 'end', data: JSON.stringify({ status: ended }) });
      } finally {
        streams.leave();
      }
    });
  });

  const action = (
    verb: 'stop' | 'resume' | 'retry' | 'context',
    act: (id: string, body: string) => Promise<Response | { id: string; message: string }>,
  ) =>
    app.post(`/api/v1/tasks/:id/${verb}`, async (c) => {
      const body = await c.req.text();
      if (body.trim() !== '' && !/^application\/json\b/i.test(c.req.header('content-type') ?? ''))
        return fail(
          envelope(415, 'unsupported_media_type', 'a request body must be JSON (Content-Type: application/json)'),
        );
      const done = await act(c.req.param('id'), body);
      if (done instanceof Response) return done;
      deps.logger.info({ event: `api.${verb}` as const, taskId: done.id }, `${verb} over the API: ${done.message}`);
      return c.json({ ok: true, id: done.id, message: done.message });
    });
  const bad = (message: string): Response => fail(envelope(400, 'bad_request', message));
  action('stop', async (id) => {
    const { flag } = await stopTask(id, deps.layout, 'the HTTP API', deps.clock);
    return { id, message: `stop flag written: ${relative(deps.layout.root, flag)}` };
  });
  action('resume', async (id) => {
    const { removed } = await resumeTask(id, deps.layout);
    return {
      id,
      message: removed
        ? 'stop flag removed: it continues from its checkpoint'
        : 'it has no stop flag: nothing to resume',
    };
  });
  action('retry', async (id, text) => {
    const body = readBody(text, retryBody);
    if (!body.ok) return bad(body.message);
    const result = await sendTaskBack(id, deps.layout, deps.config, {
      fresh: body.value.fresh === true,
      clock: deps.clock,
    });
    const moved = `${relative(deps.layout.root, result.from)} → ${relative(deps.layout.root, result.to)}`;
    return {
      id: result.id,
      message: result.archivedTo === null ? moved : `${moved}; its memory was archived, it starts over`,
    };
  });
  action('context', async (id, text) => {
    const body = readBody(text, contextBody);
    if (!body.ok) return bad(body.message);
    const taskId = (await findTaskIn(id, deps.layout, ['approved', 'rejected', 'done'])).id;
    const added = 'text' in body.value ? body.value.text : null;
    await changeContext(deps.layout.state, taskId, added, deps.clock);
    return { id: taskId, message: added === null ? 'context cleared' : 'context added: the next iteration reads it' };
  });

  app.notFound(() => fail(envelope(404, 'not_found', 'no such endpoint: the API is under /api/v1/')));
  app.onError((error, c) => {
    const answer = answerForError(error);
    if (answer.status === 500)
      deps.logger.error({ event: 'api.failed', err: error, path: c.req.path }, 'an API request failed');
    return fail(answer);
  });
  return app;

  function busy(what: string): Response {
    return fail(envelope(503, 'busy', `too many ${what} at once; try again in a moment`), { 'Retry-After': '1' });
  }
}
