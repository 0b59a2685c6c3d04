/**
 * The one event model every agent CLI's output is turned into. A driver reads its CLI's own
 * format (stream JSON, JSON lines, plain text) and emits these; everything after it — the live
 * view, the final message the promise is looked for in, the usage, the failure decision — works
 * on these events only, whichever agent ran.
 */

/** Tokens and cost one run used. Input counts every token the model read, cached ones included. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** The part of `inputTokens` read from the prompt cache. */
  cacheReadTokens: number;
  /** The part of `inputTokens` written to the prompt cache. */
  cacheWriteTokens: number;
  /** In USD, where the CLI reports it (Claude Code, OpenCode); never estimated. */
  costUsd?: number;
}

/**
 * What kind of failure the agent CLI reported, as the loop decides on it:
 * rate_limit, overloaded, network → transient (backed off and retried, not an iteration);
 * auth, billing, context_too_long, fatal → hard (the task is rejected, with what to fix);
 * usage_limit → wait for the reset; other → an ordinary failed run (recorded, the loop goes on).
 */
export type AgentErrorKind =
  'rate_limit' | 'overloaded' | 'network' | 'auth' | 'usage_limit' | 'billing' | 'context_too_long' | 'fatal' | 'other';

export interface AgentError {
  kind: AgentErrorKind;
  /** The full message for the report and the log: what happened and what to do next. */
  message: string;
  /** For a usage limit: when it resets (epoch ms), or null when the CLI does not say. */
  resetAtMs?: number | null;
}

export type AgentEvent =
  /** The agent's own session (thread) id, and what it says about itself. */
  | { type: 'session'; sessionId: string | null; model?: string | null; version?: string | null }
  /** Text of the agent for the live view; `partial` pieces are streamed deltas of one message. */
  | { type: 'text'; text: string; partial?: boolean }
  | { type: 'thinking'; text: string }
  /** A tool call: its name and the one thing worth seeing (the command, the file). */
  | { type: 'tool_use'; name: string; summary: string }
  | { type: 'tool_result'; ok: boolean; output: string; exitCode?: number | null }
  /** The agent's final message of the run so far; the last one counts. The promise is looked for only here. */
  | { type: 'final_message'; text: string }
  /** Usage to add to the run's total, or (`total`) the run's whole usage, replacing what was added. */
  | { type: 'usage'; usage: Partial<Usage>; total?: boolean }
  /** Something the CLI says about itself (its own retries, a limit notice); shown as it is. */
  | { type: 'notice'; text: string }
  /**
   * A failure the CLI reported. `said` is its own words, shown live ('' to show nothing, when
   * another event already showed them). `stopNow` ends the run at once (the CLI would only keep
   * retrying something no retry fixes, such as a refused key).
   */
  | ({ type: 'error'; said: string; stopNow?: boolean } & AgentError)
  /** The run's closing summary (the CLI's result line). */
  | { type: 'finished'; ok: boolean; agent: string; facts: string[]; said?: string }
  /** An output line that is not in the CLI's structured format (a banner, a crash), kept as it is. */
  | { type: 'raw'; text: string };

export const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** `total` with `more` added; a cost stays absent until some part reports one. */
export function addUsage(total: Usage, more: Partial<Usage>): Usage {
  const sum: Usage = {
    inputTokens: total.inputTokens + (more.inputTokens ?? 0),
    outputTokens: total.outputTokens + (more.outputTokens ?? 0),
    cacheReadTokens: total.cacheReadTokens + (more.cacheReadTokens ?? 0),
    cacheWriteTokens: total.cacheWriteTokens + (more.cacheWriteTokens ?? 0),
  };
  if (total.costUsd !== undefined || more.costUsd !== undefined)
    sum.costUsd = (total.costUsd ?? 0) + (more.costUsd ?? 0);
  return sum;
}

/** The facts of a usage for a one-line summary: "200 in / 40 out tokens", "$0.0016". */
export function usageFacts(usage: Partial<Usage> | null): string[] {
  if (usage === null) return [];
  const facts: string[] = [];
  if (usage.costUsd !== undefined && usage.costUsd > 0) facts.push(`$${usage.costUsd.toFixed(4)}`);
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  if (input + output > 0) facts.push(`${input} in / ${output} out tokens`);
  return facts;
}
