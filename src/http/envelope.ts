import { isWiggumError } from '../errors.js';

/** Every error the API answers: one shape, whatever went wrong. */
export interface ErrorEnvelope {
  error: { code: string; message: string };
}

export interface ErrorAnswer {
  status: 400 | 401 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 503;
  body: ErrorEnvelope;
}

export function envelope(status: ErrorAnswer['status'], code: string, message: string): ErrorAnswer {
  return { status, body: { error: { code, message } } };
}

/** Said to a request without the right token, and nothing else (not even whether the path exists). */
export const UNAUTHORIZED = envelope(
  401,
  'unauthorized',
  'a bearer token is needed: Authorization: Bearer <the token in .wiggum/http-token>',
);

/**
 * What an action that threw answers. wiggum's own errors say what is wrong in words meant for the
 * user (a task not found, a task that has ended): those are passed on. Anything else is the daemon's
 * problem, logged in full and answered with no detail.
 */
export function answerForError(error: unknown): ErrorAnswer {
  if (isWiggumError(error, 'E_TASK_NOT_FOUND')) return envelope(404, 'not_found', error.message);
  if (isWiggumError(error, 'E_USAGE')) return envelope(409, 'conflict', error.message);
  if (isWiggumError(error, 'E_LOCKED')) return envelope(409, 'locked', error.message);
  if (
    isWiggumError(error, 'E_TASK_UNREADABLE') ||
    isWiggumError(error, 'E_TASK_YAML') ||
    isWiggumError(error, 'E_TASK_FRONTMATTER') ||
    isWiggumError(error, 'E_TASK_SCHEMA') ||
    isWiggumError(error, 'E_TASK_GONE')
  )
    return envelope(409, 'conflict', error.message);
  return envelope(500, 'internal', 'the daemon could not answer this request; its log says why');
}
