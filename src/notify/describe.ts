import { localTime } from '../time/local-time.js';
import type { NotifierStatus } from './sender.js';

/**
 * One line per notifier for `wiggum status` and the Dashboard: its redacted name, its events and
 * how it goes, the failing ones with their last error (a notifier that fails is said, not hidden in
 * the log).
 */
export function describeNotifier(notifier: NotifierStatus, nowMs: number): string {
  const name = `${notifier.label} (${notifier.events.join(', ')})`;
  const pending =
    notifier.pending === 0 ? '' : `; ${notifier.pending} event${notifier.pending === 1 ? '' : 's'} pending`;
  const last =
    notifier.lastError === null
      ? ''
      : `last error: ${notifier.lastError}${notifier.lastErrorAtMs === null ? '' : ` at ${localTime(notifier.lastErrorAtMs, nowMs)}`}`;
  if (notifier.failing) return `${name}: FAILING, ${notifier.failures} attempts in a row failed; ${last}${pending}`;
  if (notifier.failures > 0) return `${name}: retrying; ${last}${pending}`;
  if (notifier.lastOkAtMs !== null)
    return `${name}: ok, last delivery at ${localTime(notifier.lastOkAtMs, nowMs)}${pending}`;
  return `${name}: ${notifier.pending === 0 ? 'nothing sent yet' : 'sending'}${pending}`;
}
