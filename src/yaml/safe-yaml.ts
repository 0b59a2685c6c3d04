import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, visit } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import { estimateNesting } from './nesting.js';

/** Limits on untrusted YAML, checked before and during parsing. */
export const YAML_LIMITS = {
  maxDepth: 32,
  maxAliases: 8,
} as const;

/** A problem inside a YAML text; offsets are into that text. */
export interface YamlProblem {
  offset: number;
  key?: string;
  message: string;
}

export interface SafeYaml {
  doc: Document.Parsed;
  data: Record<string, unknown>;
}

/**
 * Parses untrusted YAML into plain data, refusing anything that could cost time or change
 * behaviour: deep nesting, alias bombs, duplicate keys, merge keys, `__proto__` keys, custom tags
 * and anything that is not a mapping at the top. No code is ever evaluated (the `yaml` package has
 * no JavaScript types), and dates and numbers stay as the core schema reads them.
 */
export type SafeYamlResult =
  | { ok: true; value: SafeYaml }
  /** `data` is there when the only errors were duplicate keys, so the rest can still be checked. */
  | { ok: false; problems: YamlProblem[]; data?: Record<string, unknown>; doc?: Document.Parsed };

export function parseSafeYaml(source: string): SafeYamlResult {
  const nesting = estimateNesting(source, YAML_LIMITS.maxDepth);
  if (nesting.depth > YAML_LIMITS.maxDepth) {
    return fail({
      offset: nesting.offset,
      message: `YAML nests deeper than ${YAML_LIMITS.maxDepth} levels: flatten the frontmatter`,
    });
  }

  const doc = parseDocument(source, {
    uniqueKeys: true,
    merge: false,
    prettyErrors: false,
    keepSourceTokens: false,
    strict: true,
  });
  const problems: YamlProblem[] = [...doc.errors, ...doc.warnings].map((error) => ({
    offset: error.pos[0],
    message: yamlMessage(error.code, error.message, source.slice(error.pos[0])),
  }));
  const onlyDuplicates =
    doc.errors.length > 0 && doc.warnings.length === 0 && doc.errors.every((error) => error.code === 'DUPLICATE_KEY');
  if (problems.length > 0 && !onlyDuplicates) return { ok: false, problems };

  const contents = doc.contents;
  if (contents !== null && !isMap(contents)) {
    return fail({
      offset: contents.range?.[0] ?? 0,
      message: 'the frontmatter must be a mapping of keys to values (key: value lines)',
    });
  }

  const structural = structuralProblems(doc);
  if (structural.length > 0) return { ok: false, problems: [...problems, ...structural] };

  let data: Record<string, unknown>;
  try {
    data = (doc.toJS({ maxAliasCount: 100 }) ?? {}) as Record<string, unknown>;
  } catch (error) {
    return fail({ offset: 0, message: `YAML could not be read: ${(error as Error).message}` });
  }
  if (problems.length > 0) return { ok: false, problems, data, doc };
  return { ok: true, value: { doc, data } };
}

function fail(problem: YamlProblem): { ok: false; problems: YamlProblem[] } {
  return { ok: false, problems: [problem] };
}

/** Walks the tree once for the checks the parser does not make itself. */
function structuralProblems(doc: Document.Parsed): YamlProblem[] {
  const problems: YamlProblem[] = [];
  let aliases = 0;
  visit(doc, {
    Alias(_key, node) {
      aliases += 1;
      if (aliases === YAML_LIMITS.maxAliases + 1) {
        problems.push({
          offset: node.range?.[0] ?? 0,
          message: `more than ${YAML_LIMITS.maxAliases} YAML aliases (*name): write the values out instead`,
        });
      }
    },
    Pair(_key, pair, path) {
      const key = isScalar(pair.key) ? pair.key.value : undefined;
      const offset = isScalar(pair.key) ? (pair.key.range?.[0] ?? 0) : 0;
      const keyPath = dottedPath(path, key);
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
        problems.push({
          offset,
          key: keyPath,
          message: `the key "${String(key)}" is not allowed (it could alter objects)`,
        });
      } else if (key === '<<') {
        problems.push({ offset, key: keyPath, message: 'YAML merge keys (<<) are not supported: write the keys out' });
      } else if (pair.key !== null && !isScalar(pair.key)) {
        problems.push({
          offset: (pair.key as YamlNode).range?.[0] ?? 0,
          message: 'keys must be plain words, not collections',
        });
      }
      if (path.length > YAML_LIMITS.maxDepth * 2) {
        problems.push({
          offset,
          key: keyPath,
          message: `YAML nests deeper than ${YAML_LIMITS.maxDepth} levels: flatten the frontmatter`,
        });
        return visit.BREAK;
      }
      return undefined;
    },
    Node(_key, node, path) {
      if (!isAlias(node) && node.tag !== undefined && !node.tag.startsWith('tag:yaml.org,2002:')) {
        problems.push({ offset: node.range?.[0] ?? 0, message: `the YAML tag ${node.tag} is not supported` });
      }
      if ((isMap(node) || isSeq(node)) && path.length > YAML_LIMITS.maxDepth * 2) {
        problems.push({
          offset: node.range?.[0] ?? 0,
          message: `YAML nests deeper than ${YAML_LIMITS.maxDepth} levels: flatten the frontmatter`,
        });
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return problems;
}

/** `persistence_loop.checkpoint` from the visitor's path of ancestors. */
function dottedPath(path: readonly unknown[], last: unknown): string {
  const parts: string[] = [];
  for (const ancestor of path) {
    if (isPair(ancestor) && isScalar(ancestor.key)) parts.push(String(ancestor.key.value));
  }
  parts.push(String(last));
  return parts.join('.');
}

/** The parser's message, made shorter and, for a duplicate key, naming the key (`rest` starts at it). */
function yamlMessage(code: string, message: string, rest: string): string {
  const firstLine = message.split('\n')[0] ?? message;
  const cleaned = firstLine.replace(/ at line \d+, column \d+:?$/, '');
  switch (code) {
    case 'DUPLICATE_KEY':
      return `duplicate key "${/^[^:\n]*/.exec(rest)?.[0].trim() ?? ''}": each key may appear once`;
    case 'TAG_RESOLVE_FAILED':
      return `${cleaned} (custom YAML tags are not supported)`;
    default:
      return cleaned;
  }
}
