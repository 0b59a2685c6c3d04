import { WiggumError } from '../errors.js';

/**
 * Where the parts of a Markdown file sit, as offsets into the decoded text (BOM character included).
 * Serializing splices new text into these ranges, so every byte outside them comes back unchanged.
 */
export interface FrontmatterLayout {
  /** The text starts with U+FEFF. */
  bom: boolean;
  /** The line ending new lines are written with: the one the file already uses. */
  eol: '\n' | '\r\n';
  hasFrontmatter: boolean;
  /** First character of the YAML between the delimiters. */
  yamlStart: number;
  /** Start of the closing delimiter line. */
  yamlEnd: number;
  /** First character after the closing delimiter line. */
  bodyStart: number;
  /** 1-based line of `yamlStart` in the file, to turn YAML positions into file positions. */
  yamlFirstLine: number;
}

const OPENER = /^---[ \t]*$/;
const CLOSER = /^(?:---|\.\.\.)[ \t]*$/;

/**
 * Finds the frontmatter block. Only YAML between `---` lines is accepted: any other language
 * (`---js`, `---toml`, `+++`) is refused outright, because some parsers evaluate such blocks as code.
 */
export function locateFrontmatter(text: string): FrontmatterLayout {
  const bom = text.charCodeAt(0) === 0xfeff;
  const start = bom ? 1 : 0;
  const firstNewline = text.indexOf('\n', start);
  const eol: '\n' | '\r\n' = firstNewline > 0 && text[firstNewline - 1] === '\r' ? '\r\n' : '\n';
  const firstLine = stripCr(text.slice(start, firstNewline === -1 ? text.length : firstNewline));

  const none: FrontmatterLayout = {
    bom,
    eol,
    hasFrontmatter: false,
    yamlStart: start,
    yamlEnd: start,
    bodyStart: start,
    yamlFirstLine: 1,
  };

  if (firstLine.startsWith('+++')) {
    throw new WiggumError(
      'E_TASK_FRONTMATTER',
      'TOML frontmatter (+++) is not supported: write the frontmatter in YAML between two --- lines',
      { details: { line: 1, col: 1 } },
    );
  }
  if (!firstLine.startsWith('---')) return none;
  if (!OPENER.test(firstLine)) {
    if (/^-{4,}[ \t]*$/.test(firstLine)) return none; // a Markdown rule, not a delimiter
    const language = firstLine.slice(3).trim().split(/\s/)[0] ?? '';
    throw new WiggumError(
      'E_TASK_FRONTMATTER',
      `frontmatter language "${language}" is not supported (the first line is "${firstLine}"): ` +
        'wiggum reads only YAML frontmatter, opened by a line of exactly ---',
      { details: { line: 1, col: 4 } },
    );
  }
  if (firstNewline === -1) {
    throw unclosed();
  }

  const yamlStart = firstNewline + 1;
  let lineStart = yamlStart;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    if (CLOSER.test(stripCr(text.slice(lineStart, lineEnd)))) {
      return {
        bom,
        eol,
        hasFrontmatter: true,
        yamlStart,
        yamlEnd: lineStart,
        bodyStart: newline === -1 ? text.length : newline + 1,
        yamlFirstLine: 2,
      };
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  throw unclosed();
}

function unclosed(): WiggumError {
  return new WiggumError(
    'E_TASK_FRONTMATTER',
    'the frontmatter opened by --- on line 1 is never closed: add a line of exactly --- after the last key',
    { details: { line: 1, col: 1 } },
  );
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
