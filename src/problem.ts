/**
 * A problem found in a task or config file, positioned for a person: `path:line:col: message`.
 * Line and column are 1-based; file-level problems (size, encoding) sit at 1:1.
 */
export interface Problem {
  file: string;
  line: number;
  col: number;
  /** The frontmatter key the problem is about, dotted for nested keys (`persistence_loop.iteration`). */
  key?: string;
  message: string;
}

export function formatProblem(problem: Problem): string {
  return `${problem.file}:${problem.line}:${problem.col}: ${problem.message}`;
}

export function fileProblem(file: string, message: string): Problem {
  return { file, line: 1, col: 1, message };
}

/** 1-based line and column of a character offset in `text`. */
export function positionOf(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, col: end - lineStart + 1 };
}
