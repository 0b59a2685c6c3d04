import { SecretMask } from '../secret-mask.js';
import { isWiggumError } from '../errors.js';

/** How many causes are followed, and how many frames of each are kept: enough to find the bug, not a wall. */
const MAX_DEPTH = 6;
const MAX_FRAMES = 15;

/**
 * An error and its `cause`s, each with its message and stack frames, as plain text for a report:
 *
 *     WiggumError E_MEMORY_CORRUPT: …/prd.json: not valid JSON …
 *         at parseJsonText (file:///…/memory/json-text.js:18:11)
 *     Caused by: SyntaxError: …
 *         at JSON.parse (<anonymous>)
 *
 * Every occurrence of a `secrets` value is replaced by `[redacted]`: a message can quote a file or
 * an answer that held a key. A cycle of causes is cut where it repeats.
 */
export function describeErrorChain(error: unknown, secrets: readonly string[] = []): string {
  const lines: string[] = [];
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null; depth += 1) {
    const prefix = depth === 0 ? '' : 'Caused by: ';
    if (seen.has(current)) {
      lines.push(`${prefix}(the chain repeats from here)`);
      break;
    }
    if (depth === MAX_DEPTH) {
      lines.push(`${prefix}… (more causes not shown)`);
      break;
    }
    seen.add(current);
    if (!(current instanceof Error)) {
      lines.push(
        `${prefix}${typeof current === 'string' ? current : safeJson(current)} (thrown as a ${typeof current}, so no stack)`,
      );
      break;
    }
    const code = isWiggumError(current) ? ` ${current.code}` : '';
    lines.push(`${prefix}${current.name}${code}: ${current.message}`);
    const frames = stackFrames(current);
    lines.push(...frames.slice(0, MAX_FRAMES));
    if (frames.length > MAX_FRAMES) lines.push(`    … ${frames.length - MAX_FRAMES} more frames`);
    current = current.cause;
  }
  return redact(lines.join('\n'), secrets);
}

/** The `at …` lines of an error's stack (the header, which repeats the message, left out). */
function stackFrames(error: Error): string[] {
  return (error.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at\s/.test(line))
    .map((line) => `    ${line.trim()}`);
}

/** `text` with every value of `secrets` (8 characters or more) replaced by `[redacted]` (secret-mask.ts). */
export function redact(text: string, secrets: readonly string[]): string {
  return new SecretMask(secrets).text(text);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
