/**
 * A moment as a person reads it on a page that is not rewritten every second (Dashboard.md): an
 * absolute local time, never "16s" or "3m ago", which are stale as soon as the page is written.
 * `14:02:05` on the day of `nowMs`, `2026-11-24 14:02` on another day.
 */
export function localTime(ms: number, nowMs: number): string {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return '—';
  const two = (n: number): string => String(n).padStart(2, '0');
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  const now = new Date(nowMs);
  const today = `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}`;
  return day === today
    ? `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`
    : `${day} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** Date, time and the UTC offset: the page's header, which says what the bare times below mean. */
export function localStamp(ms: number): string {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return '—';
  const two = (n: number): string => String(n).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const zone = `UTC${offset < 0 ? '-' : '+'}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())} ${zone}`;
}
