import type { Figures, VaultStats } from './figures.js';

/** One row of the table: its label and how a figure reads. */
const ROWS: [string, (figures: Figures) => string][] = [
  ['finished (Done/)', (f) => String(f.finished)],
  ['waiting in Review/', (f) => String(f.review)],
  ['rejected', (f) => String(f.rejected)],
  ['success rate', (f) => percent(f.successRate)],
  ['time to Done/ p50', (f) => duration(f.timeToDoneMs.p50)],
  ['time to Done/ p95', (f) => duration(f.timeToDoneMs.p95)],
  ['iterations per finished', (f) => decimal(f.iterationsPerFinished)],
  [
    'tokens per finished',
    (f) => (f.tokensPerFinished === null ? '—' : Math.round(f.tokensPerFinished).toLocaleString('en-US')),
  ],
  ['cost per finished', (f) => dollars(f.costPerFinishedUsd)],
  ['cost in all', (f) => dollars(f.totalCostUsd)],
  ['refused completion claims', (f) => String(f.refusedClaims)],
  ['retries', (f) => String(f.retries)],
  ['usage-limit waits', (f) => String(f.usageLimitWaits)],
];

/** `wiggum stats` on a terminal: a table with a column overall and one per harness. */
export function renderStats(stats: VaultStats, vault: string, since: string | null): string {
  const window =
    stats.sinceMs === null || since === null
      ? 'every task that ended'
      : `tasks that ended in the last ${since} (since ${new Date(stats.sinceMs).toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
  const lines = [`wiggum stats: ${vault}, ${window}`, ''];
  const columns: [string, Figures][] = [['overall', stats.overall], ...Object.entries(stats.harnesses)];
  const table = [
    ['', ...columns.map(([name]) => (name === 'overall' ? name : `harness ${name}`))],
    ...ROWS.map(([label, cell]) => [label, ...columns.map(([, figures]) => cell(figures))]),
  ];
  const widths = (table[0] ?? []).map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length)));
  for (const row of table)
    lines.push(
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    );
  const { tasks, histories } = stats.unreadable;
  if (tasks > 0)
    lines.push(
      '',
      `${tasks} task file${tasks === 1 ? '' : 's'} could not be read: counted in their folder's total only (wiggum validate FILE says why).`,
    );
  if (histories > 0)
    lines.push('', `${histories} history file${histories === 1 ? '' : 's'} had lines that could not be read: skipped.`);
  return `${lines.join('\n')}\n`;
}

/** The Dashboard's one line: "Success rate 80% (12 finished, 3 rejected) · $0.1234 per finished task". */
export function headlineText(figures: Figures): string {
  const parts = [
    `Success rate ${percent(figures.successRate)} (${figures.finished} finished, ${figures.rejected} rejected${figures.review > 0 ? `, ${figures.review} in review` : ''})`,
  ];
  if (figures.costPerFinishedUsd !== null) parts.push(`${dollars(figures.costPerFinishedUsd)} per finished task`);
  if (figures.timeToDoneMs.p50 !== null) parts.push(`time to Done/ ${duration(figures.timeToDoneMs.p50)} (median)`);
  return parts.join(' · ');
}

function percent(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 1000) / 10}%`;
}

function decimal(value: number | null): string {
  return value === null ? '—' : String(Math.round(value * 10) / 10);
}

function dollars(value: number | null): string {
  return value === null ? '—' : `$${value.toFixed(4)}`;
}

/** 45s, 12m 05s, 3h 20m, 2d 4h. */
export function duration(ms: number | null): string {
  if (ms === null) return '—';
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}
