import type { AgentError, AgentEvent, Usage } from './agent-event.js';
import { NO_USAGE, addUsage } from './agent-event.js';
import type { JsonEvent } from './json-events.js';
import { LineSplitter, isRecord, num, parseEvent, str } from './json-events.js';
import type { AgentReport, HarnessFailure, OutputReader } from './driver.js';
import { failureOf } from './driver.js';
import { EventRenderer } from './render-event.js';
import type { ProcessResult } from '../run-process.js';

/**
 * The common half of the drivers whose CLI prints one JSON event per line (claude, codex,
 * opencode, amp, gemini): bounded line splitting and tolerant parsing (`json-events.ts`), the
 * driver's parser turning each JSON object into AgentEvents, and one fold of those events into
 * the live view, the final message, the usage and the failure. A malformed or unknown line is
 * shown and logged as it is and never ends the run.
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

/** What one run looked like once it ended, for AgentStreamParser.finish. */
export interface FinishedRun {
  result: ProcessResult;
  /** At least one stdout line was a JSON object; if not, the CLI was not in its JSON mode. */
  sawJson: boolean;
  /** The last stdout lines that were not JSON (banners, login prompts, crashes). */
  plainLines: string[];
  /** When the run ended (epoch ms), for reset times such as "try again in 2h". */
  endedAtMs: number;
  /** The failure an error event already reported, if any (finish need not look again). */
  reported: AgentError | null;
}

/** One CLI's format: JSON objects in, AgentEvents out. A fresh parser per run. */
export interface AgentStreamParser {
  /** The agent as people know it ("Claude Code"), for the live view. */
  readonly agent: string;
  /** The events one JSON object printed on stdout stands for ([] for none). */
  event(event: JsonEvent): AgentEvent[];
  /** Events only the end of the run can tell (an exit code, the end of stderr). */
  finish(run: FinishedRun): AgentEvent[];
}

/** Everything the events of one run add up to. */
class RunFold {
  sessionId: string | null = null;
  finalMessage: string | null = null;
  usage: Usage | null = null;
  error: AgentError | null = null;
  /** The first error that asked to end the run at once. */
  urgent: AgentError | null = null;

  take(event: AgentEvent): void {
    switch (event.type) {
      case 'session':
        this.sessionId = event.sessionId ?? this.sessionId;
        break;
      case 'final_message':
        this.finalMessage = event.text;
        break;
      case 'usage':
        this.usage = addUsage(event.total === true || this.usage === null ? NO_USAGE : this.usage, event.usage);
        break;
      case 'error': {
        const error: AgentError = { kind: event.kind, message: event.message };
        if (event.resetAtMs !== undefined) error.resetAtMs = event.resetAtMs;
        this.error = error;
        if (event.stopNow === true) this.urgent ??= error;
        break;
      }
      case 'finished':
      case 'notice':
      case 'raw':
      case 'text':
      case 'thinking':
      case 'tool_result':
      case 'tool_use':
      default:
        break;
    }
  }
}

/**
 * An OutputReader over a JSON-lines stdout. `display` shows what the `push` of the same chunk
 * parsed (the loop calls push, then display); non-JSON stdout lines and stderr are shown as they are.
 */
export function jsonLinesReader(parser: AgentStreamParser, maxLineBytes?: number): OutputReader {
  const splitter = new LineSplitter(maxLineBytes);
  const renderer = new EventRenderer(parser.agent);
  const fold = new RunFold();
  const plainLines: string[] = [];
  let sawJson = false;
  let lastChunk: Buffer | null = null;
  let shown = '';

  const apply = (events: AgentEvent[]): string => {
    let text = '';
    for (const event of events) {
      fold.take(event);
      text += renderer.render(event);
    }
    return text;
  };

  const take = (line: string | null): string => {
    if (line === null) return apply([{ type: 'raw', text: '[an output line longer than the limit was dropped]' }]);
    const event = parseEvent(line);
    if (event !== null) {
      sawJson = true;
      return apply(safely(() => parser.event(event)));
    }
    if (line.trim() === '') return '';
    plainLines.push(line.length > PLAIN_LINE_CHARS ? `${line.slice(0, PLAIN_LINE_CHARS)}…` : line);
    if (plainLines.length > PLAIN_LINES_KEPT) plainLines.shift();
    return apply([{ type: 'raw', text: line }]);
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
    urgentFailure(): HarnessFailure | null {
      return fold.urgent === null ? null : failureOf(fold.urgent);
    },
    finish(result) {
      splitter.end((line) => take(line));
      const run: FinishedRun = {
        result,
        sawJson,
        plainLines: [...plainLines],
        endedAtMs: result.startedAtMs + result.durationMs,
        reported: fold.error,
      };
      apply(safely(() => parser.finish(run)));
      const error = fold.urgent ?? fold.error;
      const report: AgentReport = {
        // '' when the CLI spoke JSON but the agent said nothing (no promise can be found then);
        // null when it never spoke JSON: look in stdout, as for a plain command.
        finalMessage: fold.finalMessage ?? (sawJson ? '' : null),
        failure: error === null ? null : failureOf(error),
      };
      if (fold.sessionId !== null) report.agentSessionId = fold.sessionId;
      if (fold.usage !== null) report.usage = fold.usage;
      return report;
    },
  };
}

/** A parser that throws on a shape it did not expect loses that line's events, never the run. */
function safely(parse: () => AgentEvent[]): AgentEvent[] {
  try {
    return parse();
  } catch (error) {
    return [
      {
        type: 'notice',
        text: `! an output line could not be read: ${error instanceof Error ? error.message : String(error)}`,
      },
    ];
  }
}

/** Text of a block of tool output, for a tool_result event. */
export function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value))
    return value
      .filter(isRecord)
      .map((part) => str(part['text']) ?? '')
      .join('\n');
  return '';
}
