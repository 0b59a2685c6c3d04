/**
 * progress.txt as in the original Ralph (snarktank/ralph): a header with a Codebase Patterns section, then
 * one section per iteration. wiggum only ever appends; the agent edits the file too.
 */

/** `2025-03-11 10:00:00 UTC`: sortable, readable, and with the zone spelled out. */
export function progressDate(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function progressHeader(startedAtMs: number): string {
  return `# Ralph Progress Log\nStarted: ${progressDate(startedAtMs)}\n---\n\n## Codebase Patterns\n\n---\n`;
}

export interface ProgressSectionInput {
  atMs: number;
  iteration: number;
  /** The story worked on, when known; the heading falls back to `iteration N`. */
  storyId?: string | null | undefined;
  /** Bullet points; an item that already starts with `-` or spaces is written as is. */
  lines: readonly string[];
}

/** `## <date> - <story or iteration N>`, the bullets, and the closing `---`. */
export function progressSection(input: ProgressSectionInput): string {
  const label =
    input.storyId !== undefined && input.storyId !== null && input.storyId !== ''
      ? input.storyId
      : `iteration ${input.iteration}`;
  const body = input.lines.map((line) => (/^(\s|-)/.test(line) ? line : `- ${line}`));
  return [`## ${progressDate(input.atMs)} - ${label}`, ...body, '---', ''].join('\n');
}

/** `existing` with `section` appended after one blank line, whatever the agent left at the end. */
export function appendSectionText(existing: string, section: string): string {
  const tail = section.endsWith('\n') ? section : `${section}\n`;
  if (existing === '') return tail;
  const separator = existing.endsWith('\n\n') ? '' : existing.endsWith('\n') ? '\n' : '\n\n';
  return existing + separator + tail;
}
