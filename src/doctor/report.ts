import type { CheckResult, CheckStatus } from './checks.js';
import { doctorExitCode } from './checks.js';
import { plural } from '../plural.js';

const LABELS: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

/** One line per check (`ok`, `warn`, `FAIL`), its fix indented below it, then a one-line verdict. */
export function formatReport(results: readonly CheckResult[]): string {
  const lines: string[] = [];
  for (const result of results) {
    lines.push(`${LABELS[result.status]}  ${result.check}: ${result.message}`);
    if (result.fix !== null && result.status !== 'ok') lines.push(`      fix: ${result.fix}`);
  }
  const failed = results.filter((result) => result.status === 'fail').length;
  const warned = results.filter((result) => result.status === 'warn').length;
  lines.push(
    failed === 0
      ? `ready: nothing to fix${warned === 0 ? '' : ` (${plural(warned, 'warning')} worth a look)`}`
      : `${plural(failed, 'problem')} to fix before a first run${warned === 0 ? '' : `, ${plural(warned, 'warning')}`}`,
  );
  return `${lines.join('\n')}\n`;
}

/** `--json`: the same checks, for scripts. */
export function reportJson(vault: string, results: readonly CheckResult[]): string {
  return `${JSON.stringify({ vault, ok: doctorExitCode(results) === 0, checks: results }, null, 2)}\n`;
}
