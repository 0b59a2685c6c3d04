import type { JsonEvent } from './json-events.js';
import { LineSplitter, isRecord, num, parseEvent, str } from './json-events.js';
import type { AgentReport, OutputReader } from './driver.js';
import type { ProcessResult } from '../run-process.js';

/**
 * The common half of the drivers whose CLI prints one JSON event per line (claude, codex,
 * opencode, amp, gemini): the OutputReader plumbing over the bounded line splitting and tolerant
 * event parsing of `json-events.ts`, path accessors for untrusted JSON, and small display helpers.
 * A driver supplies a JsonEventHandler holding what it learns.
 */

export type { JsonEvent };

/** Non-JSON stdout lines kept for failure messages (login prompts, crashes). */
const PLAIN_LINES_KEPT = 20;
const PLAIN_LINE_CHARS = 2000;

/** The value at a path of keys, or undefined. */
export function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** The string at a path, or null. */
export function textAt(value: unknown, ...path: string[]): string | null {
  return str(at(value, ...path));
}

/** The non-negative number at a path (token counts, costs, status codes), or null. */
export function numberAt(value: unknown, ...path: string[]): number | null {
  const found = num(at(value, ...path));
  return found !== null && found >= 0 ? found : null;
}

/** The array at a path, or an empty one. */
export function listAt(value: unknown, ...path: string[]): unknown[] {
  const found = at(value, ...path);
  return Array.isArray(found) ? found : [];
}

/** What one run looked like once it ended, for JsonEventHandler.report. */
export interface FinishedRun {
  result: ProcessResult;
  /** At least one stdout line was a JSON object; if not, the CLI was not in its JSON mode. */
  sawJson: boolean;
  /** The last stdout lines that were not JSON (banners, login prompts, crashes). */
  plainLines: string[];
  /** When the run ended (epoch ms), for reset times such as "try again in 2h". */
  endedAtMs: number;
}

export interface JsonEventHandler {
  /** One JSON object printed on stdout; returns the text to show live ('' for nothing). */
  event(event: JsonEvent): string;
  /** The report, once every line has been seen. */
  report(run: FinishedRun): AgentReport;
}

/**
 * An OutputReader over a JSON-lines stdout. `display` shows what the `push` of the same chunk
 * parsed (the loop calls push, then display); non-JSON stdout lines and stderr are shown as they are.
 */
export function jsonLinesReader(handler: JsonEventHandler, maxLineBytes?: number): OutputReader {
  const splitter = new LineSplitter(maxLineBytes);
  const plainLines: string[] = [];
  let sawJson = false;
  let lastChunk: Buffer | null = null;
  let shown = '';

  const take = (line: string | null): string => {
    if (line === null) return '[an output line longer than the limit was dropped]\n';
    const event = parseEvent(line);
    if (event !== null) {
      sawJson = true;
      return handler.event(event);
    }
    if (line.trim() === '') return '';
    plainLines.push(line.length > PLAIN_LINE_CHARS ? `${line.slice(0, PLAIN_LINE_CHARS)}…` : line);
    if (plainLines.length > PLAIN_LINES_KEPT) plainLines.shift();
    return `${line}\n`;
  };

  const push = (chunk: Buffer, stream: 'stdout' | 'stderr'): void => {
    if (stream !== 'stdout') return;
    lastChunk = chunk;
    shown = '';
    splitter.push(chunk, (line) => (shown += take(line)));
  };

  return {
    push,
    display(chunk, stream) {
      if (stream !== 'stdout') return chunk.toString('utf8');
      if (chunk !== lastChunk) push(chunk, stream);
      const text = shown;
      shown = '';
      lastChunk = null;
      return text;
    },
    finish(result) {
      splitter.end((line) => take(line));
      return handler.report({ result, sawJson, plainLines: [...plainLines], endedAtMs: result.startedAtMs + result.durationMs });
    },
  };
}

/**
 * The final message of a structured run: the agent's last message; '' when the CLI spoke JSON but
 * the agent said nothing (no promise can be found then); null when it never spoke JSON (look in
 * stdout, as for a plain command).
 */
export function finalMessageOf(lastMessage: string | null, run: FinishedRun): string | null {
  if (lastMessage !== null) return lastMessage;
  return run.sawJson ? '' : null;
}

/** Adds a usage report to a running total (counts the CLI left out stay as they were). */
export function addTokens(total: { input: number; output: number } | undefined, input: number | null, output: number | null): { input: number; output: number } | undefined {
  if (input === null && output === null) return total;
  return { input: (total?.input ?? 0) + (input ?? 0), output: (total?.output ?? 0) + (output ?? 0) };
}

/** Text shown for a block of tool output: its last lines, indented, at most `maxLines`. */
export function outputPreview(text: string, maxLines = 8): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return '';
  const kept = lines.slice(-maxLines).map((line) => `  ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
  const skipped = lines.length - kept.length;
  return `${skipped > 0 ? `  … ${skipped} more lines\n` : ''}${kept.join('\n')}\n`;
}

/** A one-line summary of a value for display (tool inputs). */
export function oneLine(value: unknown, maxChars = 200): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars)}…` : flat;
}
