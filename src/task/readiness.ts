import type { ParseResult } from './parse.js';
import { NO_HARNESS_TEXT, chooseHarness } from './harness-choice.js';

/**
 * Why a file in Approved/ is not run (yet): `empty`, nothing but white space (a note just created,
 * never a task); `no-harness`, a task that names no agent while the config names no default.
 * Neither is rejected: the file waits, and runs once its author fixes it.
 */
export type WaitReason = 'empty' | 'no-harness';

/** Whether a read file may run, or why it waits. A file that does not parse is for the caller to judge. */
export function waitReasonOf(
  text: string | null,
  result: ParseResult,
  defaultHarness: string | null,
): WaitReason | null {
  if (text !== null && text.trim() === '') return 'empty';
  if (!result.ok) return null;
  return chooseHarness(undefined, result.task.frontmatter.harness, defaultHarness) === null ? 'no-harness' : null;
}

/** What is wrong with a waiting file and how to fix it, without its name (status and Dashboard lines). */
export function waitReasonText(reason: WaitReason): string {
  return reason === 'empty' ? 'empty; write the task in it (better: in Drafts/, then move it here)' : NO_HARNESS_TEXT;
}
