/**
 * A strict reader for the small, plain YAML that wiggum writes itself (the `state` and
 * `persistence_loop` keys): `key: value` lines nested by indentation, plain or double-quoted
 * scalars, and one-line flow lists and maps of those, nested a few levels. The `yaml` package costs about 10 µs a line;
 * this costs well under one, which matters when `wiggum status` reads every task in Approved/.
 *
 * It never guesses: anything outside that shape (block lists, anchors, tags, multi-line scalars,
 * single quotes, a scalar YAML would read as a float other than a plain decimal, octal, hex or
 * special value) returns
 * undefined, and the caller parses with the `yaml` package instead. So wherever it answers, it
 * answers what the full parser would.
 */
export function readPlainYaml(lines: readonly string[]): Record<string, unknown> | undefined {
  const root: Record<string, unknown> = {};
  // The mappings open, innermost last, each with the indentation of its keys (the root's is the
  // first key's).
  const stack: { indent: number | null; map: Record<string, unknown> }[] = [{ indent: null, map: root }];
  let pendingKey: { parent: Record<string, unknown>; key: string; indent: number } | null = null;

  for (const raw of lines) {
    const line = stripComment(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (line === undefined) return undefined;
    if (line.trim() === '') continue;
    const indent = line.length - line.trimStart().length;
    if (line.slice(0, indent).includes('\t')) return undefined;

    if (pendingKey !== null) {
      // The key before had no value: a deeper line opens its mapping, anything else makes it null.
      if (indent > pendingKey.indent) {
        const map: Record<string, unknown> = {};
        pendingKey.parent[pendingKey.key] = map;
        stack.push({ indent, map });
      } else {
        pendingKey.parent[pendingKey.key] = null;
      }
      pendingKey = null;
    }
    while (stack.length > 1 && indent < (stack.at(-1)?.indent ?? 0)) stack.pop();
    const top = stack.at(-1);
    if (top === undefined) return undefined;
    top.indent ??= indent;
    if (indent !== top.indent) return undefined;

    const match = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/.exec(line.slice(indent));
    if (match === null) return undefined;
    const key = match[1] as string;
    if (Object.hasOwn(top.map, key) || key === '__proto__' || key === 'constructor' || key === 'prototype')
      return undefined;
    const text = match[2]?.trim() ?? '';
    if (text === '') {
      pendingKey = { parent: top.map, key, indent };
      continue;
    }
    const value = readValue(text);
    if (value === undefined) return undefined;
    top.map[key] = value.value;
  }
  if (pendingKey !== null) pendingKey.parent[pendingKey.key] = null;
  return root;
}

/** The line without a trailing ` # comment`; undefined when a quote makes that unclear. */
function stripComment(line: string): string | undefined {
  if (line.trimStart().startsWith('#')) return '';
  const hash = line.search(/\s#/);
  const before = hash === -1 ? line : line.slice(0, hash);
  if (before.includes("'")) return undefined;
  // A double-quoted value may hold ` #`: keep the line whole when its quotes do not close before.
  if (hash !== -1 && (before.split('"').length - 1) % 2 === 1) return undefined;
  return before.trimEnd();
}

type Read = { value: unknown } | undefined;

function readValue(text: string): Read {
  if (text.startsWith('[')) return readFlow(text, '[', ']');
  if (text.startsWith('{')) return readFlow(text, '{', '}');
  return readScalar(text);
}

/** Flow collections inside flow collections (`state_data: {spent: {…}}`): a few levels, more fall back. */
const MAX_FLOW_DEPTH = 4;

/** A one-line flow list or map of scalars and of flow collections nested a few levels. */
function readFlow(text: string, open: string, close: string, depth = 1): Read {
  if (!text.endsWith(close) || depth > MAX_FLOW_DEPTH) return undefined;
  const parts = splitFlow(text.slice(1, -1));
  if (parts === undefined) return undefined;
  if (open === '[') {
    const list: unknown[] = [];
    for (const part of parts) {
      const item = readFlowItem(part, depth);
      if (item === undefined) return undefined;
      list.push(item.value);
    }
    return { value: list };
  }
  const map: Record<string, unknown> = {};
  for (const part of parts) {
    const pair = /^([A-Za-z_][A-Za-z0-9_-]*): +(.+)$/.exec(part);
    if (pair === null || Object.hasOwn(map, pair[1] as string)) return undefined;
    const item = readFlowItem(pair[2] as string, depth);
    if (item === undefined) return undefined;
    map[pair[1] as string] = item.value;
  }
  return { value: map };
}

function readFlowItem(text: string, depth: number): Read {
  if (text.startsWith('[')) return readFlow(text, '[', ']', depth + 1);
  if (text.startsWith('{')) return readFlow(text, '{', '}', depth + 1);
  return readScalar(text);
}

/** The items of a flow collection, split at commas outside double quotes and nested collections; undefined if unbalanced. */
function splitFlow(inner: string): string[] | undefined {
  const parts: string[] = [];
  const nesting: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < inner.length; i += 1) {
    const ch = inner[i];
    if (quoted) {
      if (ch === '\\') i += 1;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === '[' || ch === '{') {
      nesting.push(ch === '[' ? ']' : '}');
    } else if (ch === ']' || ch === '}') {
      if (nesting.pop() !== ch) return undefined;
    } else if (ch === ',' && nesting.length === 0) {
      parts.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (quoted || nesting.length > 0) return undefined;
  const last = inner.slice(start).trim();
  if (last !== '' || parts.length > 0) parts.push(last);
  return parts.some((part) => part === '') ? undefined : parts;
}

const PLAIN_WORD = /^[A-Za-z_/][A-Za-z0-9_./:+-]*$/;
const INTEGER = /^-?(?:0|[1-9][0-9]{0,14})$/;
/** A plain decimal (`64.5`, `0.123456`, as checkpoints write sizes and costs): YAML's float and JavaScript's Number agree on it. */
const DECIMAL = /^-?(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const ID_LIKE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function readScalar(text: string): Read {
  if (text.startsWith('"')) {
    // Double-quoted YAML whose escapes are JSON's reads the same with JSON.parse; others fall back.
    if (!text.endsWith('"') || text.length < 2 || /\\[^"\\/bfnrtu]/.test(text)) return undefined;
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      return undefined;
    }
  }
  if (text === 'true' || text === 'false') return { value: text === 'true' };
  if (text === 'null' || text === '~') return { value: null };
  // True, FALSE, Null and the like are booleans and null to YAML too: leave them to it.
  if (/^(?:true|false|null)$/i.test(text)) return undefined;
  if (INTEGER.test(text) || DECIMAL.test(text)) return { value: Number(text) };
  // Timestamps stay strings in YAML 1.2's core schema, as everywhere in wiggum.
  if (TIMESTAMP.test(text)) return { value: text };
  // Words YAML could read as anything but a string (True, NULL, .inf, 0x1F, 1e3, .5) fall back.
  if (/^[-+.]?[0-9]/.test(text) || text.startsWith('.')) {
    const numeric =
      /^[0-9._-]+$/.test(text) ||
      /^[-+.]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?$/.test(text) ||
      /^0(?:x[0-9a-fA-F_]+|o[0-7_]+|b[01_]+)$/.test(text);
    return ID_LIKE.test(text) && !numeric ? { value: text } : undefined;
  }
  return PLAIN_WORD.test(text) ? { value: text } : undefined;
}
