import { isMap, isScalar, isSeq } from 'yaml';
import type { Document, Node as YamlNode, Pair } from 'yaml';
import type { z } from 'zod';
import { isWiggumError } from '../errors.js';
import { locateFrontmatter } from './frontmatter.js';
import { idFromFileName } from './id.js';
import type { FrontmatterLayout } from './frontmatter.js';
import { positionOf } from '../problem.js';
import type { Problem } from '../problem.js';
import { offsetOfPath } from '../yaml/locate.js';
import { parseSafeYaml } from '../yaml/safe-yaml.js';
import { taskFrontmatterSchema } from './schema.js';
import type { TaskFrontmatter } from './schema.js';
import { parseChecklist } from './stories.js';
import type { ChecklistStory } from './stories.js';

/** Where a wiggum-owned key sits in the file text, so that it can be replaced in place. */
export interface OwnedKeyRange {
  /** Start of the pair's first line (or of the key, if other text precedes it on that line). */
  start: number;
  /** End of the pair's last line, its line ending included. */
  end: number;
  /** The value's own range, when it can be replaced without touching the key line. */
  value?: { start: number; end: number; block: boolean };
}

/**
 * A task file, parsed. `text` is exactly what was read; everything else is derived from it.
 * Tasks are shared (see the parse memo below) and must never be modified.
 */
export interface Task {
  file: string;
  text: string;
  layout: FrontmatterLayout;
  id: string;
  frontmatter: TaskFrontmatter;
  body: string;
  stories: ChecklistStory[];
  /** 1-based positions of top-level keys, for problems found later (an unknown harness, …). */
  keyPositions: Record<string, { line: number; col: number }>;
  owned: { state?: OwnedKeyRange; persistence_loop?: OwnedKeyRange };
  /** Column at which top-level keys start (almost always 0). */
  keyIndent: number;
  /**
   * Problems in wiggum's own keys that a parse for a running loop set aside (see ParseOptions):
   * another program rewrote them in a shape wiggum does not read. Absent otherwise.
   */
  unreadOwnedKeys?: Problem[];
  /**
   * Where a frontmatter of `{}` (YAML's "no properties", which Obsidian writes) is, line break
   * included: wiggum's keys replace it, since block keys cannot follow a flow mapping.
   */
  emptyMapping?: { start: number; end: number };
}

export type ParseResult = { ok: true; task: Task } | { ok: false; problems: Problem[] };

export interface ParseOptions {
  /**
   * Set while the task's loop runs: `state` and `persistence_loop` are wiggum's to rewrite, and
   * its next checkpoint replaces them whatever shape another program left them in, so problems
   * confined to them do not make the file unreadable (the rest of the file still has to parse).
   * Before a run they do: a checkpoint that cannot be read is reported, never taken as state.
   */
  ownedKeysReplaceable?: boolean;
}

const OWNED_KEYS = new Set(['state', 'persistence_loop']);

/**
 * How many parses are remembered. The loop reads back the text it has just written, and the daemon
 * reads a task several times around each iteration: the same text is parsed once.
 */
const MEMO_SIZE = 64;
const memo = new Map<string, ParseResult>();

/** Parses a task's text. Never throws for bad input: every problem comes back positioned. */
export function parseTask(file: string, text: string, options: ParseOptions = {}): ParseResult {
  // A file that parses as it is parses the same for a running loop: one memo entry serves both.
  const strict = remembered(`${file}\u0000${text}`, () => parseTaskText(file, text, false));
  if (strict.ok || options.ownedKeysReplaceable !== true) return strict;
  return remembered(`r${file}\u0000${text}`, () => parseTaskText(file, text, true));
}

/**
 * Remembers `task` as the parse of its text, for a text wiggum has just derived together with its
 * parse (task/spliced-task.ts): the next read of those bytes then costs no parse.
 */
export function rememberParse(task: Task): void {
  remember(`${task.file}\u0000${task.text}`, { ok: true, task });
}

function remember(key: string, result: ParseResult): void {
  memo.set(key, result);
  if (memo.size > MEMO_SIZE) memo.delete(memo.keys().next().value as string);
}

function remembered(key: string, parse: () => ParseResult): ParseResult {
  const known = memo.get(key);
  if (known !== undefined) {
    // Least recently used goes first: move this one to the end.
    memo.delete(key);
    memo.set(key, known);
    return known;
  }
  const result = parse();
  remember(key, result);
  return result;
}

function parseTaskText(file: string, text: string, ownedKeysReplaceable: boolean): ParseResult {
  let layout: FrontmatterLayout;
  try {
    layout = locateFrontmatter(text);
  } catch (error) {
    if (!isWiggumError(error)) throw error;
    const line = typeof error.details.line === 'number' ? error.details.line : 1;
    const col = typeof error.details.col === 'number' ? error.details.col : 1;
    return { ok: false, problems: [{ file, line, col, message: error.message }] };
  }

  const yamlText = text.slice(layout.yamlStart, layout.yamlEnd);
  const at = (offset: number): { line: number; col: number } => {
    const position = positionOf(yamlText, offset);
    return { line: position.line + layout.yamlFirstLine - 1, col: position.col };
  };

  let data: Record<string, unknown> = {};
  let doc: Document.Parsed | null = null;
  let emptyMapping: Task['emptyMapping'];
  if (layout.hasFrontmatter && yamlText.trim() !== '') {
    const parsed = parseSafeYaml(yamlText);
    if (!parsed.ok) {
      const problems: Problem[] = parsed.problems.map((problem) => ({
        file,
        ...at(problem.offset),
        ...(problem.key === undefined ? {} : { key: problem.key }),
        message: problem.key === undefined ? problem.message : `${problem.key}: ${problem.message}`,
      }));
      // After duplicate keys the rest is still readable: report its problems in the same pass.
      const rest = parsed.data === undefined ? null : taskFrontmatterSchema.safeParse(parsed.data);
      if (rest && !rest.success)
        problems.push(...rest.error.issues.map((issue) => schemaProblem(file, parsed.doc ?? null, issue, at)));
      return { ok: false, problems };
    }
    data = parsed.value.data;
    doc = parsed.value.doc;
    if (isMap(doc.contents) && doc.contents.flow && doc.contents.items.length === 0 && doc.contents.range) {
      const start = layout.yamlStart + doc.contents.range[0];
      const lineEnd = text.indexOf('\n', layout.yamlStart + doc.contents.range[1]);
      emptyMapping = { start, end: lineEnd === -1 ? layout.yamlEnd : lineEnd + 1 };
    } else if (isMap(doc.contents) && doc.contents.flow) {
      return {
        ok: false,
        problems: [
          {
            file,
            ...at(doc.contents.range?.[0] ?? 0),
            message: 'write the frontmatter as key: value lines; a {…} mapping leaves no room for the checkpoint',
          },
        ],
      };
    }
  }

  let checked = taskFrontmatterSchema.safeParse(data);
  let unreadOwnedKeys: Problem[] | undefined;
  if (
    !checked.success &&
    ownedKeysReplaceable &&
    checked.error.issues.every((issue) => OWNED_KEYS.has(String(issue.path[0])))
  ) {
    unreadOwnedKeys = checked.error.issues.map((issue) => schemaProblem(file, doc, issue, at));
    checked = taskFrontmatterSchema.safeParse(
      Object.fromEntries(Object.entries(data).filter(([name]) => !OWNED_KEYS.has(name))),
    );
  }
  if (!checked.success) {
    return { ok: false, problems: checked.error.issues.map((issue) => schemaProblem(file, doc, issue, at)) };
  }

  const frontmatter = checked.data;
  const id = frontmatter.id ?? idFromFileName(file);
  // A task that waits for itself would never run: said at once, as a mistake in the file.
  if (frontmatter.depends_on?.includes(id) === true) {
    const offset = doc === null ? undefined : offsetOfPath(doc, ['depends_on']);
    return {
      ok: false,
      problems: [
        {
          file,
          ...(offset === undefined ? { line: 1, col: 1 } : at(offset)),
          key: 'depends_on',
          message: `depends_on: names this task itself (${id}); a task cannot wait for itself: remove ${id} from the list`,
        },
      ],
    };
  }
  const body = text.slice(layout.bodyStart);
  const keyPositions: Task['keyPositions'] = {};
  const owned: Task['owned'] = {};
  let keyIndent = 0;
  if (doc !== null && isMap(doc.contents)) {
    const pairs = doc.contents.items as Pair<YamlNode, YamlNode | null>[];
    const firstKey = pairs[0]?.key;
    if (firstKey !== undefined && firstKey.range) keyIndent = at(firstKey.range[0]).col - 1;
    for (const pair of pairs) {
      if (!isScalar(pair.key) || !pair.key.range) continue;
      const name = String(pair.key.value);
      keyPositions[name] = at(pair.key.range[0]);
      if (name === 'state' || name === 'persistence_loop') {
        owned[name] = ownedRange(yamlText, layout.yamlStart, pair);
      }
    }
  }
  return {
    ok: true,
    task: {
      file,
      text,
      layout,
      id,
      frontmatter,
      body,
      stories: parseChecklist(body),
      keyPositions,
      owned,
      keyIndent,
      ...(emptyMapping === undefined ? {} : { emptyMapping }),
      ...(unreadOwnedKeys === undefined ? {} : { unreadOwnedKeys }),
    },
  };
}

function ownedRange(yamlText: string, base: number, pair: Pair<YamlNode, YamlNode | null>): OwnedKeyRange {
  const key = pair.key;
  const keyStart = key.range?.[0] ?? 0;
  const value = pair.value;
  const valueRange = value?.range;
  const lastEnd = valueRange ? Math.max(valueRange[2], valueRange[1]) : (key.range?.[2] ?? keyStart);
  const end = lineEndAfter(yamlText, lastEnd);
  // A pair rewritten whole is rewritten from the start of its line, indentation included.
  const lineStart = lineStartBefore(yamlText, keyStart);
  const start = /^[ \t]*$/.test(yamlText.slice(lineStart, keyStart)) ? lineStart : keyStart;
  const range: OwnedKeyRange = { start: base + start, end: base + end };
  if (value && valueRange && valueRange[1] > valueRange[0]) {
    const keyLineEnd = lineEndAfter(yamlText, key.range?.[1] ?? keyStart);
    const block = (isMap(value) || isSeq(value)) && !value.flow && valueRange[0] >= keyLineEnd;
    if (block) {
      range.value = { start: base + lineStartBefore(yamlText, valueRange[0]), end: base + end, block: true };
    } else if (isScalar(value) && valueRange[0] < keyLineEnd && valueRange[1] <= keyLineEnd) {
      range.value = { start: base + valueRange[0], end: base + valueRange[1], block: false };
    }
  }
  return range;
}

/** Offset just past the line ending of the line containing `offset` (or `offset` at a line start). */
function lineEndAfter(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline + 1;
}

function lineStartBefore(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function schemaProblem(
  file: string,
  doc: Document.Parsed | null,
  issue: z.core.$ZodIssue,
  at: (offset: number) => { line: number; col: number },
): Problem {
  const key = issue.path.map(String).join('.');
  const offset = doc === null ? undefined : offsetOfPath(doc, issue.path);
  const position = offset === undefined ? { line: 1, col: 1 } : at(offset);
  return { file, ...position, key, message: key === '' ? issue.message : `${key}: ${issue.message}` };
}
