import type { WiggumConfig } from '../config/config.js';
import { WiggumError } from '../errors.js';

/**
 * The largest memory files wiggum reads (`memory.limits` in the config). The agent writes them, so
 * they are untrusted input: each is checked by its size, on the opened file, before a byte is read.
 */
export type MemoryLimits = WiggumConfig['memory']['limits'];

export const DEFAULT_MEMORY_LIMITS: MemoryLimits = {
  prdBytes: 8 * 1024 * 1024,
  progressBytes: 8 * 1024 * 1024,
  contextBytes: 1024 * 1024,
};

export type MemoryFileKind = 'prd' | 'progress' | 'context';

const KEYS: Record<MemoryFileKind, { limit: keyof MemoryLimits; key: string }> = {
  prd: { limit: 'prdBytes', key: 'memory.limits.prd' },
  progress: { limit: 'progressBytes', key: 'memory.limits.progress' },
  context: { limit: 'contextBytes', key: 'memory.limits.context' },
};

export function limitOf(limits: MemoryLimits, kind: MemoryFileKind): number {
  return limits[KEYS[kind].limit];
}

/** Pure: a size as a person reads it: `512 bytes`, `60.0 MiB`, `8 MiB`, `256 KiB`. */
export function describeBytes(bytes: number): string {
  const units = [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const;
  for (const [unit, size] of units) {
    if (bytes < size) continue;
    const value = bytes / size;
    return Number.isInteger(value) ? `${value} ${unit}` : `${value.toFixed(1)} ${unit}`;
  }
  return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

/**
 * A memory file over its limit, or not a regular file: not read, and the run that left it counts as
 * a failed attempt (classify.ts). The message names the file, its size and the limit.
 */
export function memoryTooLarge(path: string, kind: MemoryFileKind, size: number | null, limit: number): WiggumError {
  const what =
    size === null
      ? `${path} is not a regular file (a link, a FIFO or a device), so it was not read`
      : `${path} is ${describeBytes(size)}, over the ${describeBytes(limit)} limit for ${kind === 'prd' ? 'prd.json' : kind === 'progress' ? 'progress.txt' : 'context.md'} (${KEYS[kind].key}), so it was not read`;
  return new WiggumError(
    'E_MEMORY_TOO_LARGE',
    `${what}: keep the file short (the agent's memory is read every iteration), or raise ${KEYS[kind].key} in the config`,
    { details: { path, kind, bytes: size, limit } },
  );
}
