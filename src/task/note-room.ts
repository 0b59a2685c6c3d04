import { TASK_LIMITS } from './limits.js';
import { appendSection } from './render.js';

/**
 * What wiggum appends to a task note keeps the note under the task-size limit, so that `retry`
 * (which reads the file again) always works. The user's own text is never cut; wiggum's earlier
 * reports are folded to one line each, then the new section is cut to the room left. Pure.
 */

/** The headings of the reports wiggum appends (reports.ts). */
const REPORT = /^## (Failure report|Completion summary)[ \t]*\r?$/m;
const FOLDED = '_(An earlier wiggum report was folded here to keep this note under the 1 MiB task limit.)_';
const CUT =
  '_(The rest of this report was cut to keep this note under the 1 MiB task limit; history.jsonl and the logs keep every run.)_';

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Pure: `text` with each earlier wiggum report (its heading to the next `## ` heading) folded to one line. */
export function foldReports(text: string, eol: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const found = REPORT.exec(rest);
    if (found === null) return out + rest;
    out += rest.slice(0, found.index);
    const after = rest.slice(found.index + found[0].length);
    const next = /^## /m.exec(after);
    out += `${FOLDED}${eol}${eol}`;
    rest = next === null ? '' : after.slice(next.index);
  }
}

/** Pure: `section` cut to at most `room` bytes (whole lines, the cut said), or '' when not even the note fits. */
export function cutSection(section: string, room: number, eol: string): string {
  if (bytes(section) <= room) return section;
  // Room is kept for a fence closed after the cut (its marker and a line break).
  const budget = room - bytes(CUT) - 3 * bytes(eol) - 32;
  if (budget <= 0) return '';
  let kept = Buffer.from(section, 'utf8').subarray(0, budget).toString('utf8');
  // A partly decoded last character, and the partial last line, go.
  kept = kept.replace(/\uFFFD$/, '');
  const lastLine = kept.lastIndexOf('\n');
  if (lastLine > 0) kept = kept.slice(0, lastLine);
  // An open code fence would swallow the note that says it was cut.
  const fences = kept.match(/^`{3,}/gm) ?? [];
  if (fences.length % 2 === 1) kept += `${eol}${fences.at(-1) ?? '```'}`;
  return `${kept}${eol}${eol}${CUT}`;
}

/**
 * Pure: `text` with `section` appended, within `maxBytes`: as is when it fits, else with the
 * earlier reports folded, else with the section cut to the room left. A note the user filled past
 * the limit on their own gets no section.
 */
export function appendWithin(
  text: string,
  section: string,
  eol: '\n' | '\r\n',
  maxBytes = TASK_LIMITS.maxBytes,
): string {
  const whole = appendSection(text, section, eol);
  if (bytes(whole) <= maxBytes) return whole;
  const folded = foldReports(text, eol);
  const foldedWhole = appendSection(folded, section, eol);
  if (bytes(foldedWhole) <= maxBytes) return foldedWhole;
  const room = maxBytes - bytes(appendSection(folded, '', eol)) - 2 * bytes(eol);
  const cut = cutSection(section, room, eol);
  return cut === '' ? folded : appendSection(folded, cut, eol);
}
