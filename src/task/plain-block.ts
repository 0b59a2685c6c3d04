/**
 * The checkpoint block as the `yaml` package writes it (`renderBlockText` in render.ts), written by
 * hand for the shapes wiggum's own checkpoints take: a YAML document and its stringify cost about a
 * tenth of a millisecond per checkpoint, more than the rest of the splice. Only plain scalars that
 * YAML reads back as the same string, integers and short decimals, booleans, null, and the
 * checkpoint's lists and maps; anything else (a message with spaces, a string that would read as a
 * number, a value of another shape) returns null and the block goes to the `yaml` package. Its
 * table test holds it to that package's output, byte for byte.
 */

/**
 * Letters, digits, `_` or `.` first (`.ralph/…`), then also `/`, `:`, `+`, `-`; never `:` last
 * nor `...` first (a document marker). No quoting, in a block or in a flow.
 */
const PLAIN = /^[A-Za-z0-9_.][A-Za-z0-9_./:+-]*$/;
/** What YAML 1.2's core schema reads as null, a boolean, an integer or a float (yaml's own tests, schema/core). */
const NOT_A_STRING = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];

function plainString(value: string): string | null {
  if (!PLAIN.test(value) || value.endsWith(':') || value.startsWith('...')) return null;
  for (const pattern of NOT_A_STRING) if (pattern.test(value)) return null;
  return value;
}

/** A scalar as yaml writes it, or null when it is not one of the simple cases. */
function scalar(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
      return plainString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number': {
      if (Object.is(value, -0)) return null;
      const text = JSON.stringify(value);
      return /^-?\d+(?:\.\d+)?$/.test(text) ? text : null;
    }
    case 'object':
      return value === null ? 'null' : null;
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      return null;
  }
}

/** A list or map in flow style (`[a, b]`, `{k: v}`), nested ones too; null for anything else. */
function flow(value: unknown): string | null {
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value as unknown[]) {
      const text = flowValue(item);
      if (text === null) return null;
      items.push(text);
    }
    return `[${items.join(', ')}]`;
  }
  if (!isPlainObject(value)) return null;
  const pairs: string[] = [];
  for (const key of Object.keys(value)) {
    const name = plainString(key);
    const text = flowValue(value[key]);
    if (name === null || text === null) return null;
    pairs.push(`${name}: ${text}`);
  }
  return `{${pairs.join(', ')}}`;
}

function flowValue(value: unknown): string | null {
  return typeof value === 'object' && value !== null ? flow(value) : scalar(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * The block's lines, `indent` spaces in, each ended by `eol`, as yaml writes `ordered` (the block's
 * keys in order, `checkpoint` reduced to its own): a map value of the top level as a block map
 * under its key, every list and map below that in flow style. null when yaml must write it.
 */
export function plainBlockText(ordered: Record<string, unknown>, indent: number, eol: string): string | null {
  if (Object.keys(ordered).length === 0) return null;
  const lines: string[] = [];
  const pad = ' '.repeat(indent);
  for (const key of Object.keys(ordered)) {
    const name = plainString(key);
    const value = ordered[key];
    if (name === null) return null;
    if (!isPlainObject(value) || Object.keys(value).length === 0) {
      // A list here is a block list in yaml's output, and an empty map a flow one: not written by hand.
      const text = scalar(value);
      if (text === null) return null;
      lines.push(`${pad}${name}: ${text}${eol}`);
      continue;
    }
    lines.push(`${pad}${name}:${eol}`);
    for (const inner of Object.keys(value)) {
      const innerName = plainString(inner);
      const text = flowValue(value[inner]);
      if (innerName === null || text === null) return null;
      lines.push(`${pad}  ${innerName}: ${text}${eol}`);
    }
  }
  return lines.join('');
}
