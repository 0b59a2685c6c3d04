import { z } from 'zod';

/** The longest text `POST …/context` adds: guidance for the next prompt, not a document. */
export const CONTEXT_TEXT_MAX = 16 * 1024;

export const contextBody = z.union([
  z.strictObject({ text: z.string().trim().min(1, 'text is empty').max(CONTEXT_TEXT_MAX) }),
  z.strictObject({ clear: z.literal(true) }),
]);

export const retryBody = z.strictObject({ fresh: z.boolean().optional() });

/** An empty body stands for `{}` (a bare `POST …/retry`); anything else must be a JSON object. */
export type BodyRead<T> = { ok: true; value: T } | { ok: false; message: string };

export function readBody<T>(text: string, schema: z.ZodType<T>): BodyRead<T> {
  let json: unknown = {};
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, message: 'the body is not JSON' };
    }
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
  return { ok: false, message: `the body is not what this endpoint takes${where}: ${issue?.message ?? 'invalid'}` };
}
