import type { ParseResult, Task } from './parse.js';
import { answerState, unansweredText } from './question-section.js';
import { NO_HARNESS_TEXT, chooseHarness } from './harness-choice.js';
import { CHANGES_HEADING, changeRequestOf } from './review.js';
import { orderWaitText } from './order.js';
import type { OrderWait } from './order.js';

/**
 * Why a file in Approved/ is not run (yet): `empty`, nothing but white space (a note just created,
 * never a task); `no-harness`, a task that names no agent while the config names no default.
 * Neither is rejected: the file waits, and runs once its author fixes it. `no-sandbox`: its harness
 * must run confined (sandbox.required, or mode bwrap) and bubblewrap cannot run on this machine: it
 * waits until it can (the daemon's scan decides it, src/vault/scan.ts). `no-change-request`: a
 * task that waited for review, moved back from Review/ with nothing under `## Changes requested`
 * (run again, it would only claim completion again): it waits for the request, or to be approved.
 * An `OrderWait` (an object): the order of work holds it (src/task/order.ts), for a dependency, a
 * time, or until a stuck dependency (rejected, a cycle, an unknown id) is sorted out.
 */
export type WaitReason = FileWaitReason | OrderWait;

/** The reasons the file alone gives (`waitReasonOf`). */
export type FileWaitReason = 'empty' | 'no-harness' | 'no-sandbox' | 'no-change-request' | UnansweredReason;

/**
 * A blocked task moved back into Approved/ with no answer below its question (question-section.ts):
 * none, an empty `## Answer`, or an answer where it is not read. It waits; the agent is not run.
 */
export type UnansweredReason = 'unanswered' | 'answer-empty' | 'answer-misplaced';

/** Whether a read file may run, or why it waits. A file that does not parse is for the caller to judge. */
export function waitReasonOf(
  text: string | null,
  result: ParseResult,
  defaultHarness: string | null,
): FileWaitReason | null {
  if (text !== null && text.trim() === '') return 'empty';
  if (!result.ok) return null;
  if (result.task.frontmatter.state === 'Review' && changeRequestOf(result.task.body) === null)
    return 'no-change-request';
  const unanswered = unansweredReasonOf(result.task);
  if (unanswered !== null) return unanswered;
  return chooseHarness(undefined, result.task.frontmatter.harness, defaultHarness) === null ? 'no-harness' : null;
}

/**
 * What is wrong with a waiting file and how to fix it, or what it waits for, without its name
 * (status and Dashboard lines). `time` writes a moment for that page.
 */
export function waitReasonText(reason: WaitReason, time: (ms: number) => string = isoTime): string {
  if (typeof reason === 'object') return orderWaitText(reason, time);
  if (reason === 'no-change-request') return NO_CHANGE_REQUEST_TEXT;
  if (reason === 'no-sandbox') return NO_SANDBOX_TEXT;
  if (reason === 'unanswered' || reason === 'answer-empty' || reason === 'answer-misplaced')
    return unansweredText({ kind: UNANSWERED_KINDS[reason], question: '', where: MISPLACED_WHERE });
  return reason === 'empty' ? 'empty; write the task in it (better: in Drafts/, then move it here)' : NO_HARNESS_TEXT;
}

/** Whether two wait reasons say the same (order waits are objects). */
export function sameWaitReason(a: WaitReason | null, b: WaitReason | null): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}

/** What a task waiting for the sandbox says in status, the Dashboard and the log. */
export const NO_SANDBOX_TEXT =
  'waits for the sandbox: its harness must run confined (sandbox.required: true, or sandbox.mode: bwrap) and bubblewrap (bwrap) cannot run on the PATH of the daemon; install bubblewrap (apt-get install bubblewrap): it starts once it can be confined, never unconfined';

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

const UNANSWERED_KINDS = {
  unanswered: 'unanswered',
  'answer-empty': 'empty',
  'answer-misplaced': 'misplaced',
} as const;
const MISPLACED_WHERE =
  'where it is not read (above the ## Question, or not under a ## Answer heading): write it under ## Answer below the question';

/** Why a blocked task waits for its answer, or null when it is not blocked or is answered. */
export function unansweredReasonOf(task: Task): UnansweredReason | null {
  const loop = task.frontmatter.persistence_loop;
  if (task.frontmatter.state !== 'Blocked' && loop?.status !== 'blocked') return null;
  const state = answerState(task.body);
  if (state.kind === 'answered') return null;
  // Blocked, but no question in the file (the user removed it): an answer cannot be told apart; it runs.
  if (state.kind === 'none') return null;
  return state.kind === 'empty' ? 'answer-empty' : state.kind === 'misplaced' ? 'answer-misplaced' : 'unanswered';
}

/** What a task moved back from Review/ with no change request waits for. */
export const NO_CHANGE_REQUEST_TEXT = `moved back from review with no change request: write what to change under "${CHANGES_HEADING}" (or run wiggum request-changes ID "…"), or move it to Done/ to approve it`;
