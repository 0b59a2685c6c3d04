const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;
const DURATION_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A duration from config in milliseconds: a bare number is seconds (as config/default.yaml writes
 * them, `per_step: 300`), a string carries its unit (`500ms`, `30s`, `5m`, `6h`, `1d`).
 * Returns undefined for anything else, so the schema can say what is wrong.
 */
export function durationMs(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
  const match = DURATION.exec(value.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * DURATION_MS[match[2] as keyof typeof DURATION_MS]);
}

const SIZE = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|KiB|MiB|GiB)?$/;
const SIZE_BYTES = {
  B: 1,
  KB: 1000,
  MB: 1_000_000,
  GB: 1_000_000_000,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
} as const;

/** A size from config in bytes: a bare number is bytes, or `50MB`, `64KiB`, … */
export function sizeBytes(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  const match = SIZE.exec(value.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * SIZE_BYTES[(match[2] ?? 'B') as keyof typeof SIZE_BYTES]);
}
