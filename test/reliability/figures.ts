import { appendFileSync } from 'node:fs';

/**
 * Prints a campaign's figures (kills survived, tasks lost, files corrupted, orphans, …) at the end
 * of its test file, and, when RELIABILITY_FIGURES names a file, appends them there as one JSON
 * line, which `npm run test:reliability` prints as a table after the run.
 */
export function printFigures(campaign: string, figures: Record<string, unknown>): void {
  console.log(`reliability figures, ${campaign}: ${JSON.stringify(figures)}`);
  const file = process.env.RELIABILITY_FIGURES;
  if (file !== undefined && file !== '') appendFileSync(file, `${JSON.stringify({ campaign, ...figures })}\n`);
}
