/**
 * Agent text made inert for the Markdown a person opens (reports, questions, the Dashboard): an
 * agent or a harness writes whatever it likes, and Obsidian would render its HTML (`<img onerror>`,
 * `<iframe>`), remote images (a tracking pixel), embeds and wikilinks (`![[…]]`, `[[…]]`), links and
 * callouts (`> [!danger]`). Pure text in, text out, table-tested in test/task/inert-text.test.ts.
 *
 * Two forms: a line of text escaped character by character (`inertLine`: for a `- Reason:` line, a
 * table cell, a story's id or title) and a block fenced with a fence longer than any backtick run
 * inside it (`inertBlock`: a question, an error, the last output). Both are cut to a length, and say
 * so. The user's own text is never passed through here: it stays byte for byte as written.
 */

/** A line of agent text is cut to this many characters (before escaping). */
export const INERT_LINE_MAX = 500;
/** A block of agent text is cut to this many characters. */
export const INERT_BLOCK_MAX = 20_000;

/**
 * The characters escaped in a line: those that start HTML or an entity (`<`, `>`, `&`), an image, an
 * embed, a link or a wikilink (`!`, `[`, `]`), a callout (`>`), a code span, a table cell (`|`), a
 * tag (`#`) or a hidden comment (`%%`), and the backslash itself. A backslash before ASCII
 * punctuation is an escape in CommonMark, and Obsidian follows it. Emphasis (`*`, `_`) is left
 * alone: it changes no more than how a word looks, and error codes (`E_HARNESS_FATAL`) stay readable.
 */
const ACTIVE = /[\\`[\]<>!|&#%]/g;

/**
 * One line of agent text that renders as the text it is: white space (line breaks included) made
 * single spaces, cut to `max` characters with "…" at the cut, and every active character escaped.
 */
export function inertLine(text: string, max = INERT_LINE_MAX): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > max ? `${[...flat].slice(0, max).join('')}…` : flat;
  return cut.replace(ACTIVE, '\\$&');
}

/**
 * A block of agent text fenced as code (```` ```text ````), the fence longer than any run of backticks
 * inside so that the text cannot close it. Over `max` characters, it is cut and a line after the
 * fence says how much was left out.
 */
export function inertBlock(text: string, max = INERT_BLOCK_MAX): string {
  const chars = [...text];
  const kept = chars.length > max ? chars.slice(0, max).join('') : text;
  const longest = Math.max(2, ...Array.from(kept.matchAll(/`+/g), (match) => match[0].length));
  const marker = '`'.repeat(longest + 1);
  const fenced = `${marker}text\n${kept}\n${marker}`;
  return chars.length > max ? `${fenced}\n(cut: ${chars.length - max} more characters not shown)` : fenced;
}

/** The text of a block `inertBlock` wrote, read back (its fence taken off); any other text as it is. */
export function unfenced(text: string): string {
  const lines = text.split('\n');
  const open = /^(`{3,})text$/.exec(lines[0] ?? '');
  if (open === null || lines.length < 2 || lines.at(-1) !== open[1]) return text;
  return lines.slice(1, -1).join('\n');
}
