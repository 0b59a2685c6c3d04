import type { IterationRecord } from './history.js';

/**
 * What a task has used so far, over every run of its agent (iterations and retries) and across
 * restarts: the totals its budgets (`max_tokens`, `max_cost_usd`, `max_duration`) are checked
 * against, kept in the checkpoint and shown by `status`, the Done summary and the Rejected report.
 */
export interface Spent {
  inputTokens: number;
  outputTokens: number;
  /** Null while no run reported a cost (Codex and Gemini never do). */
  costUsd: number | null;
  /** The agent's own run time; waits and backoff are not in it. */
  agentMs: number;
  /** CPU time of the agent's process trees. */
  cpuMs: number;
  /** The highest peak memory of one run's process tree. */
  peakRssBytes: number;
}

export const NOTHING_SPENT: Spent = {
  inputTokens: 0,
  outputTokens: 0,
  costUsd: null,
  agentMs: 0,
  cpuMs: 0,
  peakRssBytes: 0,
};

/** `spent` with one more run of the agent added. */
export function addRun(spent: Spent, record: Pick<IterationRecord, 'durationMs' | 'usage' | 'resources'>): Spent {
  const cost = record.usage?.costUsd;
  return {
    inputTokens: spent.inputTokens + (record.usage?.inputTokens ?? 0),
    outputTokens: spent.outputTokens + (record.usage?.outputTokens ?? 0),
    costUsd: cost === undefined ? spent.costUsd : (spent.costUsd ?? 0) + cost,
    agentMs: spent.agentMs + record.durationMs,
    cpuMs: spent.cpuMs + (record.resources?.cpuMs ?? 0),
    peakRssBytes: Math.max(spent.peakRssBytes, record.resources?.peakRssBytes ?? 0),
  };
}

/** The totals of history lines. */
export function spentOf(records: readonly IterationRecord[]): Spent {
  return records.reduce(addRun, NOTHING_SPENT);
}

export function totalTokens(spent: Spent): number {
  return spent.inputTokens + spent.outputTokens;
}

/** "12,345 tokens (10,000 in / 2,345 out) · $0.1234 · agent 3m 12s · CPU 45.2 s · peak memory 312 MB" */
export function describeSpent(spent: Spent): string {
  const parts: string[] = [];
  const tokens = totalTokens(spent);
  parts.push(
    tokens === 0
      ? 'no tokens reported'
      : `${tokens.toLocaleString('en-US')} tokens (${spent.inputTokens.toLocaleString('en-US')} in / ${spent.outputTokens.toLocaleString('en-US')} out)`,
  );
  if (spent.costUsd !== null) parts.push(`$${spent.costUsd.toFixed(4)}`);
  parts.push(`agent time ${formatDuration(spent.agentMs)}`);
  if (spent.cpuMs > 0) parts.push(`CPU ${(spent.cpuMs / 1000).toFixed(1)} s`);
  if (spent.peakRssBytes > 0) parts.push(`peak memory ${Math.round(spent.peakRssBytes / (1024 * 1024))} MB`);
  return parts.join(' · ');
}

function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
