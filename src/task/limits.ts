import { WiggumError } from '../errors.js';

/** Limits on untrusted task input. Each is checked before any expensive work. */
export const TASK_LIMITS = {
  maxBytes: 1024 * 1024,
} as const;

export function tooLarge(bytes: number): WiggumError {
  return new WiggumError(
    'E_TASK_TOO_LARGE',
    `the file is ${bytes} bytes, over the 1 MiB limit for a task: move large material into the workdir and refer to it from the task`,
    { details: { bytes, limit: TASK_LIMITS.maxBytes } },
  );
}

/** One decoder for every read: a `decode` without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes a task file's bytes, refusing what is not a reasonable Markdown file:
 * over 1 MiB, containing NUL bytes (binary), or not valid UTF-8.
 */
export function decodeTaskBytes(bytes: Uint8Array): string {
  if (bytes.byteLength > TASK_LIMITS.maxBytes) throw tooLarge(bytes.byteLength);
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    throw new WiggumError(
      'E_TASK_ENCODING',
      `the file is binary (a NUL byte at offset ${nul}): a task must be UTF-8 Markdown text`,
      {
        details: { offset: nul },
      },
    );
  }
  try {
    return UTF8.decode(bytes);
  } catch (cause) {
    const offset = firstInvalidUtf8Offset(bytes);
    throw new WiggumError(
      'E_TASK_ENCODING',
      `the file is not valid UTF-8 (first bad byte at offset ${offset}): save it as UTF-8`,
      { cause, details: { offset } },
    );
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    const length = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0) return i;
    for (let k = 1; k < length; k += 1) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return i;
}
