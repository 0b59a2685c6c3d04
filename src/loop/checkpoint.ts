import type { PersistenceLoop } from '../task/schema.js';
import type { LoopStatus } from '../task/vocabulary.js';
import type { PersistenceLoopData } from '../task/render.js';
import { isoSeconds } from '../time/clock.js';
import type { LoopState, WaitCause } from './decide.js';
import type { IterationRecord } from '../memory/history.js';
import { NOTHING_SPENT, spentOf } from '../memory/spent.js';
import type { Spent } from '../memory/spent.js';

/**
 * The loop's counters as they are kept in `persistence_loop.checkpoint.state_data`, so that a
 * restart resumes with the same iteration, retry attempt, stuck counter and time used.
 */
interface StateData {
  attempt: number;
  active_ms: number;
  no_progress: number;
  usage_waits: number;
  warned: boolean;
  /** History lines written before the task was sent back (`wiggum retry`): an earlier run's, not this one's. */
  history_base?: number;
  last_outcome?: string;
  last_error?: string;
  /** What the task used so far (its budgets are checked against it); a restart never resets it. */
  spent?: SpentData;
  /** While the task waits out an agent's usage limit or an outage: until when (ISO time). */
  waiting_until?: string;
  /** What it waits for: 'usage-limit' (absent in older checkpoints) or 'outage'. */
  waiting_for?: WaitCause;
  /** Since when its harness has failed or been limited (ISO time): the longest waits count from then, across restarts. */
  waiting_since?: string;
}

interface SpentData {
  input_tokens: number;
  output_tokens: number;
  cost_usd?: number;
  agent_ms: number;
  cpu_ms: number;
  /**
   * Megabytes (one decimal): Obsidian's Properties pane shows this frontmatter, where 62 reads and
   * 65044480 does not. Checkpoints of older wiggums wrote `peak_rss_bytes`, which is still read.
   */
  peak_rss_mb: number;
}

const MB = 1024 * 1024;

function spentData(spent: Spent): SpentData {
  const data: SpentData = {
    input_tokens: spent.inputTokens,
    output_tokens: spent.outputTokens,
    agent_ms: Math.round(spent.agentMs),
    cpu_ms: Math.round(spent.cpuMs),
    peak_rss_mb: Math.round((spent.peakRssBytes / MB) * 10) / 10,
  };
  if (spent.costUsd !== null) data.cost_usd = Number(spent.costUsd.toFixed(6));
  return data;
}

/** The totals in a checkpoint, or null when it has none (a task that never ran, or checkpointed before totals were kept). */
function spentFromData(value: unknown): Spent | null {
  if (typeof value !== 'object' || value === null) return null;
  const data = value as Partial<Record<keyof SpentData | 'peak_rss_bytes', unknown>>;
  const amount = (field: unknown): number =>
    typeof field === 'number' && Number.isFinite(field) && field >= 0 ? field : 0;
  return {
    inputTokens: amount(data.input_tokens),
    outputTokens: amount(data.output_tokens),
    costUsd:
      typeof data.cost_usd === 'number' && Number.isFinite(data.cost_usd) && data.cost_usd >= 0 ? data.cost_usd : null,
    agentMs: amount(data.agent_ms),
    cpuMs: amount(data.cpu_ms),
    peakRssBytes:
      data.peak_rss_mb === undefined ? amount(data.peak_rss_bytes) : Math.round(amount(data.peak_rss_mb) * MB),
  };
}

/** A task's totals: from its checkpoint, else summed from the history lines of its current run. */
export function spentOfTask(loop: PersistenceLoop | undefined, history: readonly IterationRecord[]): Spent {
  return spentFromData(loop?.checkpoint?.state_data?.['spent']) ?? spentOf(history.slice(historyBaseOf(loop)));
}

/** Until when a task checkpointed as waiting (a usage limit, an outage) waits (epoch ms), or null. */
export function waitingUntilOf(loop: PersistenceLoop | undefined): number | null {
  if (loop?.status !== 'waiting') return null;
  return timeOf(loop.checkpoint?.state_data?.['waiting_until']);
}

/** What a task checkpointed as waiting waits for. */
export function waitCauseOf(loop: PersistenceLoop | undefined): WaitCause {
  return loop?.checkpoint?.state_data?.['waiting_for'] === 'outage' ? 'outage' : 'usage-limit';
}

function timeOf(value: unknown): number | null {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
}

/** Loop state from a task's checkpoint (or a fresh one); `maxIterations` is whatever is in force now. */
export function loopStateFromCheckpoint(loop: PersistenceLoop | undefined, maxIterations: number): LoopState {
  const data = (loop?.checkpoint?.state_data ?? {}) as Partial<Record<keyof StateData, unknown>>;
  const count = (value: unknown): number =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
  return {
    iteration: loop?.iteration ?? 0,
    maxIterations,
    attempt: count(data.attempt),
    usageWaits: count(data.usage_waits),
    waitingSinceMs: timeOf(data.waiting_since),
    noProgressStreak: count(data.no_progress),
    activeMs: count(data.active_ms),
    refusal: null,
    warned: data.warned === true,
    spent: spentFromData(data.spent) ?? NOTHING_SPENT,
  };
}

export interface CheckpointInput {
  state: LoopState;
  status: LoopStatus;
  session: string;
  started: string;
  nowMs: number;
  /** Story ids passing, and the next one to work on. */
  completedSteps: string[];
  currentStep: string | null;
  lastOutcome?: string;
  lastError?: string;
  ended?: boolean;
  exitReason?: string;
  historyBase?: number;
  /** A usage-limit or outage wait in progress: until when (epoch ms), and what for. */
  waitingUntilMs?: number;
  waitingFor?: WaitCause;
  /** Where prd.json and progress.txt are when not in the session folder: `.ralph/<task id>/`, relative to the workdir. */
  memory?: string;
}

export function checkpointData(input: CheckpointInput): PersistenceLoopData {
  const now = isoSeconds(input.nowMs);
  const stateData: StateData = {
    attempt: input.state.attempt,
    active_ms: Math.round(input.state.activeMs),
    no_progress: input.state.noProgressStreak,
    usage_waits: input.state.usageWaits,
    warned: input.state.warned,
    spent: spentData(input.state.spent),
  };
  if (input.waitingUntilMs !== undefined) stateData.waiting_until = isoSeconds(input.waitingUntilMs);
  if (input.waitingUntilMs !== undefined && input.waitingFor === 'outage') stateData.waiting_for = 'outage';
  if (input.state.waitingSinceMs !== null) stateData.waiting_since = isoSeconds(input.state.waitingSinceMs);
  if (input.historyBase !== undefined && input.historyBase > 0) stateData.history_base = input.historyBase;
  if (input.lastOutcome !== undefined) stateData.last_outcome = input.lastOutcome;
  if (input.lastError !== undefined) stateData.last_error = input.lastError.slice(0, 300);
  const data: PersistenceLoopData = {
    status: input.status,
    session: input.session,
    started: input.started,
    updated: now,
    iteration: input.state.iteration,
    max_iterations: input.state.maxIterations,
    checkpoint: {
      completed_steps: input.completedSteps,
      current_step: input.currentStep,
      state_data: stateData as unknown as Record<string, unknown>,
      timestamp: now,
    },
  };
  if (input.ended === true) data.ended = now;
  if (input.exitReason !== undefined) data.exit_reason = input.exitReason;
  if (input.memory !== undefined) data.memory = input.memory;
  return data;
}

/** How many history lines belong to runs before the task was last sent back (0 when it never was). */
export function historyBaseOf(loop: PersistenceLoop | undefined): number {
  const base = (loop?.checkpoint?.state_data as { history_base?: unknown } | undefined)?.history_base;
  return typeof base === 'number' && Number.isInteger(base) && base > 0 ? base : 0;
}
