/**
 * Review before Done: which complete tasks wait for a person, and what a person asked to change.
 * Pure, so that each case is a row of a table (test/task/review.test.ts).
 */

/** The heading a person writes a change request under (or `wiggum request-changes` writes). */
export const CHANGES_HEADING = '## Changes requested';
const SUMMARY_HEADING = '## Completion summary';

/** Whether a complete task goes to Review/ rather than Done/: its own `review:` key, else the config's. */
export function needsReview(taskReview: boolean | undefined, required: boolean): boolean {
  return taskReview ?? required;
}

/**
 * The change request in a task's body: the text under the `## Changes requested` sections written
 * after its last completion summary (the one the person reviewed), joined. Requests written before
 * that summary were answered by the run that wrote it, so they are not asked again. Null when there
 * is none, or only empty ones: the task then has nothing to go back to the loop with.
 */
export function changeRequestOf(body: string): string | null {
  const lines = body.split(/\r?\n/);
  let start = 0;
  lines.forEach((line, index) => {
    if (isHeading(line, SUMMARY_HEADING)) start = index + 1;
  });
  const requests: string[] = [];
  let current: string[] | null = null;
  for (const line of lines.slice(start)) {
    if (isHeading(line, CHANGES_HEADING)) {
      if (current !== null) requests.push(current.join('\n').trim());
      current = [];
    } else if (/^#{1,2}\s/.test(line)) {
      if (current !== null) requests.push(current.join('\n').trim());
      current = null;
    } else if (current !== null) {
      current.push(line);
    }
  }
  if (current !== null) requests.push(current.join('\n').trim());
  const text = requests.filter((request) => request !== '').join('\n\n');
  return text === '' ? null : text;
}

/** The section `wiggum request-changes` appends: the heading, then the person's words as written. */
export function changesSection(text: string): string {
  return `${CHANGES_HEADING}\n\n${text.trim()}`;
}

function isHeading(line: string, heading: string): boolean {
  return line.trimEnd().toLowerCase() === heading.toLowerCase();
}
