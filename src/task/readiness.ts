import type { ParseResult } from './parse.js';
import { NO_HARNESS_TEXT, chooseHarness } from './harness-choice.js';
import { orderWaitText } from './order.js';
import type { OrderWait } from './order.js';

/**
 * Why a file in Approved/ is not run (yet): `empty`, nothing but white space (a note just created,
 * never a task); `no-harness`, a task that names no agent while the config names no default.
 * Neither is rejected: the file waits, and runs once its author fixes it. An `OrderWait` (an object):
 * the order of work holds it (src/task/order.ts), for a dependency, a time, or until a stuck
 * dependency (rejected, a cycle, an unknown id) is sorted out.
 */
export type WaitReason = FileWaitReason | OrderWait;

/** The reasons the file alone gives (`waitReasonOf`). */
export type FileWaitReason = 'empty' | 'no-harness';

/** Whether a read file may run, or why it waits. A file that does not parse is for the caller to judge. */
export function waitReasonOf(
  text: string | null,
  result: ParseResult,
  defaultHarness: string | null,
): FileWaitReason | null {
  if (text !== null && text.trim() === '') return 'empty';
  if (!result.ok) return null;
  return chooseHarness(undefined, result.task.frontmatter.harness, defaultHarness) === null ? 'no-harness' : null;
}

/**
 * What is wrong with a waiting file and how to fix it, or what it waits for, without its name
 * (status and Dashboard lines). `time` writes a moment for that page.
 */
export function waitReasonText(reason: WaitReason, time: (ms: number) => string = isoTime): string {
  if (typeof reason === 'object') return orderWaitText(reason, time);
  return reason === 'empty' ? 'empty; write the task in it (better: in Drafts/, then move it here)' : NO_HARNESS_TEXT;
}

/** Whether two wait reasons say the same (order waits are objects). */
export function sameWaitReason(a: WaitReason | null, b: WaitReason | null): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
