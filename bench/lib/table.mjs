// The one table the bench prints.

const fmtMs = (ms) =>
  !Number.isFinite(ms) ? '—' : ms >= 100 ? `${ms.toFixed(0)}` : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
const fmtRatio = (r) => (!Number.isFinite(r) ? '—' : r >= 10 ? `${r.toFixed(0)}×` : `${r.toFixed(1)}×`);

/**
 * rows: { figure, unit, stats: {n,p50,p95,p99,max} | null, value?: string, budget?: {text, pass},
 * floor?: {name, stats} }
 */
export function renderTable(rows) {
  const header = [
    'figure',
    'unit',
    'n',
    'p50',
    'p95',
    'p99',
    'max',
    'budget',
    'verdict',
    '×floor p50/p95',
    'floor (p50 / p95)',
  ];
  const body = rows.map((row) => {
    const s = row.stats;
    const fmt = row.unit === 'ms' ? fmtMs : (v) => (!Number.isFinite(v) ? '—' : v.toFixed(1));
    const cells = s === null ? ['', '', '', '', ''] : [String(s.n), fmt(s.p50), fmt(s.p95), fmt(s.p99), fmt(s.max)];
    if (row.value !== undefined) cells[1] = row.value;
    const floor = row.floor;
    return [
      row.figure,
      row.unit,
      ...cells,
      row.budget?.text ?? '',
      row.budget === undefined ? '' : row.budget.pass ? 'PASS' : 'FAIL',
      floor === undefined || s === null
        ? ''
        : `${fmtRatio(s.p50 / floor.stats.p50)} / ${fmtRatio(s.p95 / floor.stats.p95)}`,
      floor === undefined ? '' : `${floor.name} (${fmt(floor.stats.p50)} / ${fmt(floor.stats.p95)} ${row.unit})`,
    ];
  });
  const widths = header.map((title, col) => Math.max(title.length, ...body.map((cells) => cells[col].length)));
  const numeric = new Set([2, 3, 4, 5, 6]);
  const line = (cells) =>
    cells
      .map((cell, col) => (numeric.has(col) ? cell.padStart(widths[col]) : cell.padEnd(widths[col])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}
