import { z } from 'zod';
import { durationMs } from './units.js';

/**
 * A duration as the config and task files write it (seconds, or a unit: 500ms, 30s, 5m, 6h), in
 * ms. Its own module so that every schema uses the one definition (notify-schema.ts cannot import
 * schema.ts, which imports it).
 */
export const duration = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const ms = durationMs(value);
  if (ms === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `"${value}" is not a duration: use seconds (300) or a unit (500ms, 30s, 5m, 6h)`,
    });
    return z.NEVER;
  }
  return ms;
});
