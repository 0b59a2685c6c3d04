import { resolve } from 'node:path';
import { doctorExitCode } from '../doctor/checks.js';
import { gatherChecks } from '../doctor/gather.js';
import { formatReport, reportJson } from '../doctor/report.js';
import { requireVault } from '../vault/find-root.js';
import type { ExitCode } from './exit-codes.js';

export interface DoctorOptions {
  vault?: string;
  config?: string;
  json?: boolean;
}

/** `wiggum doctor`: what a first run needs, one line per check; 0 when nothing fails, 1 otherwise. */
export async function doctorCommand(options: DoctorOptions): Promise<ExitCode> {
  const vault = resolve(options.vault ?? process.cwd());
  await requireVault(vault);
  const results = await gatherChecks({
    vault,
    config: { vault, ...(options.config === undefined ? {} : { file: options.config }) },
    env: process.env,
  });
  process.stdout.write(options.json === true ? reportJson(vault, results) : formatReport(results));
  return doctorExitCode(results);
}
