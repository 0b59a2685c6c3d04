import type { ParseResult } from './parse.js';
import { NO_HARNESS_TEXT, chooseHarness } from './harness-choice.js';
import { CHANGES_HEADING, changeRequestOf } from './review.js';

/**
 * Why a file in Approved/ is not run (yet): `empty`, nothing but white space (a note just created,
 * never a task); `no-harness`, a task that names no agent while the config names no default.
 * Neither is rejected: the file waits, and runs once its author fixes it. `no-change-request`: a
 * task that waited for review, moved back from Review/ with nothing under `## Changes requested`
 * (run again, it would only claim completion again): it waits for the request, or to be approved.
 */
export type WaitReason = 'empty' | 'no-harness' | 'no-change-request';

/** Whether a read file may run, or why it waits. A file that does not parse is for the caller to judge. */
export function waitReasonOf(
  text: string | null,
  result: ParseResult,
  defaultHarness: string | null,
): WaitReason | null {
  if (text !== null && text.trim() === '') return 'empty';
  if (!result.ok) return null;
  if (result.task.frontmatter.state === 'Review' && changeRequestOf(result.task.body) === null)
    return 'no-change-request';
  return chooseHarness(undefined, result.task.frontmatter.harness, defaultHarness) === null ? 'no-harness' : null;
}

/** What is wrong with a waiting file and how to fix it, without its name (status and Dashboard lines). */
export function waitReasonText(reason: WaitReason): string {
  if (reason === 'no-change-request') return NO_CHANGE_REQUEST_TEXT;
  return reason === 'empty' ? 'empty; write the task in it (better: in Drafts/, then move it here)' : NO_HARNESS_TEXT;
}

/** What a task moved back from Review/ with no change request waits for. */
export const NO_CHANGE_REQUEST_TEXT = `moved back from review with no change request: write what to change under "${CHANGES_HEADING}" (or run wiggum request-changes ID "…"), or move it to Done/ to approve it`;
