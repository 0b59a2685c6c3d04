/**
 * A linear over-estimate of how deeply flow collections (`[[[…`) and compact block sequences
 * (`- - - …`) nest, so that hostile nesting is refused in microseconds instead of being parsed.
 * Indentation-only nesting needs quadratic space, so the 1 MiB limit already bounds it.
 * Stops at the first place the depth passes `limit`.
 */
export function estimateNesting(yaml: string, limit = Number.POSITIVE_INFINITY): { depth: number; offset: number } {
  let flowDepth = 0;
  let deepest = 0;
  let deepestAt = 0;
  let quote: '"' | "'" | null = null;
  let lineStart = true;
  let compact = 0;
  for (let i = 0; i < yaml.length; i += 1) {
    const ch = yaml[i];
    if (ch === '\n') {
      lineStart = true;
      compact = 0;
      if (quote === null) continue;
    }
    if (quote !== null) {
      if (ch === '\\' && quote === '"') i += 1;
      else if (ch === quote) quote = null;
      continue;
    }
    if (lineStart) {
      if (ch === ' ' || ch === '\t') continue;
      if ((ch === '-' || ch === '?') && (yaml[i + 1] === ' ' || yaml[i + 1] === '\t')) {
        compact += 1;
        if (compact > deepest) {
          deepest = compact;
          deepestAt = i;
          if (deepest > limit) break;
        }
        i += 1;
        continue;
      }
      lineStart = false;
    }
    if (ch === '#' && (i === 0 || /\s/.test(yaml[i - 1] ?? ''))) {
      const newline = yaml.indexOf('\n', i);
      i = newline === -1 ? yaml.length : newline - 1;
    } else if ((ch === '"' || ch === "'") && opensScalar(yaml, i)) {
      quote = ch;
    } else if (ch === '[' || ch === '{') {
      flowDepth += 1;
      if (flowDepth > deepest) {
        deepest = flowDepth;
        deepestAt = i;
        if (deepest > limit) break;
      }
    } else if ((ch === ']' || ch === '}') && flowDepth > 0) {
      flowDepth -= 1;
    }
  }
  return { depth: deepest, offset: deepestAt };
}

/** A quote starts a quoted scalar only where a scalar can start; elsewhere (`don't`) it is plain text. */
function opensScalar(yaml: string, at: number): boolean {
  for (let j = at - 1; j >= 0; j -= 1) {
    const before = yaml[j];
    if (before === ' ' || before === '\t') continue;
    return (
      before === '\n' ||
      before === ':' ||
      before === '-' ||
      before === '?' ||
      before === '[' ||
      before === '{' ||
      before === ','
    );
  }
  return true;
}
