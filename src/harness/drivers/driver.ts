import type { HarnessKind } from '../../config/schema.js';
import type { ErrorCode } from '../../errors.js';
import type { ProcessResult } from '../run-process.js';
import type { AgentError, AgentErrorKind, Usage } from './agent-event.js';

/** A failure a driver recognised in its CLI's output or exit, classified for the loop. */
export interface HarnessFailure {
  kind: 'transient' | 'hard' | 'usage-limit';
  code: ErrorCode;
  message: string;
  /** For a usage limit: when the agent says it resets (epoch ms), if it says. */
  resetAtMs?: number | null;
}

/** What a driver read from one run's output. */
export interface AgentReport {
  /**
   * The agent's final message, for harnesses that report one (structured output). The promise is
   * then looked for only there; null means "look in stdout".
   */
  finalMessage: string | null;
  failure: HarnessFailure | null;
  agentSessionId?: string;
  usage?: Usage;
}

/** Reads one run's output as it streams, then reports. A fresh reader per run. */
export interface OutputReader {
  push(chunk: Buffer, stream: 'stdout' | 'stderr'): void;
  finish(result: ProcessResult): AgentReport;
  /**
   * A failure seen mid-run that no waiting fixes (a refused key the CLI would retry for minutes):
   * the loop ends the run at once. Null while there is none.
   */
  urgentFailure(): HarnessFailure | null;
  /** Text to show live for a chunk (structured drivers turn JSON events into readable lines). */
  display(chunk: Buffer, stream: 'stdout' | 'stderr'): string;
}

/** How wiggum talks to one kind of agent CLI. The command line itself always comes from config. */
export interface HarnessDriver {
  readonly kind: HarnessKind;
  /** How to install the CLI, shown when its binary is missing; '' when fixing the config is the only fix. */
  readonly installHint: string;
  createReader(): OutputReader;
}

/** How the loop treats each kind of agent error (see AgentErrorKind); null: an ordinary failed run. */
const FAILURE_OF: Record<AgentErrorKind, Pick<HarnessFailure, 'kind' | 'code'> | null> = {
  rate_limit: { kind: 'transient', code: 'E_HARNESS_RATE_LIMIT' },
  overloaded: { kind: 'transient', code: 'E_HARNESS_OVERLOADED' },
  network: { kind: 'transient', code: 'E_HARNESS_NETWORK' },
  auth: { kind: 'hard', code: 'E_HARNESS_AUTH' },
  usage_limit: { kind: 'usage-limit', code: 'E_HARNESS_USAGE_LIMIT' },
  billing: { kind: 'hard', code: 'E_HARNESS_BILLING' },
  context_too_long: { kind: 'hard', code: 'E_HARNESS_CONTEXT' },
  fatal: { kind: 'hard', code: 'E_HARNESS_FATAL' },
  other: null,
};

/** The loop's failure for an agent error, or null for an ordinary failed run. */
export function failureOf(error: AgentError): HarnessFailure | null {
  const decided = FAILURE_OF[error.kind];
  if (decided === null) return null;
  const failure: HarnessFailure = { ...decided, message: error.message };
  if (decided.kind === 'usage-limit') failure.resetAtMs = error.resetAtMs ?? null;
  return failure;
}

/**
 * The failures every driver shares: the binary could not start, or wiggum's own timeouts ended
 * the run. Stops are not failures; the runner handles them.
 */
export function processFailure(
  result: ProcessResult,
  installHint: string,
  timeouts: { perIterationMs: number; idleMs: number },
): HarnessFailure | null {
  if (result.spawnError !== null) {
    const missing = result.spawnError.code === 'E_HARNESS_MISSING';
    return {
      kind: 'hard',
      code: result.spawnError.code,
      message:
        missing && installHint !== '' ? `${result.spawnError.message}, or ${installHint}` : result.spawnError.message,
    };
  }
  if (result.timedOut) {
    return {
      kind: 'transient',
      code: 'E_HARNESS_TIMEOUT',
      message: `the harness ran longer than the per-iteration timeout (${Math.round(timeouts.perIterationMs / 1000)} s) and was stopped`,
    };
  }
  if (result.idleTimedOut) {
    return {
      kind: 'transient',
      code: 'E_HARNESS_IDLE',
      message: `the harness printed nothing for ${Math.round(timeouts.idleMs / 1000)} s and was stopped`,
    };
  }
  return null;
}

/** The last `count` non-empty lines of a text, trimmed (the end of stderr, for failure messages). */
export function lastLines(text: string, count = 3): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(-count)
    .join('\n');
}

/** The last non-empty line of a text, for messages. */
export function lastLine(text: string): string {
  return lastLines(text, 1);
}
