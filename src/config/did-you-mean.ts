/**
 * The known name a typo most likely meant, or null when none is close: `demoo` → `demo`,
 * `cluade` → `claude`, `Claude` → `claude`. Close means at most one edit for a name of up to four
 * letters, two beyond (a swap of two neighbours counts as one edit); letter case is ignored. Ties
 * go to the name listed first, so the answer does not depend on anything but the inputs.
 */
export function didYouMean(typed: string, known: readonly string[]): string | null {
  const word = typed.toLowerCase();
  let best: { name: string; distance: number } | null = null;
  for (const name of known) {
    if (name === typed) return null;
    const distance = editDistance(word, name.toLowerCase());
    if (distance > allowedEdits(Math.max(word.length, name.length))) continue;
    if (best === null || distance < best.distance) best = { name, distance };
  }
  return best?.name ?? null;
}

/** ` (did you mean NAME?)`, or nothing: to end an "unknown name" message with. */
export function didYouMeanSuffix(typed: string, known: readonly string[]): string {
  const guess = didYouMean(typed, known);
  return guess === null ? '' : ` (did you mean ${guess}?)`;
}

function allowedEdits(length: number): number {
  return length <= 4 ? 1 : 2;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = d;
    }
  }
  return at(a.length, b.length);
}
