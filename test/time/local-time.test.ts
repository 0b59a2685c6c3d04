import { describe, expect, test } from 'vitest';
import { localStamp, localTime } from '../../src/time/local-time.js';

/** Local wall-clock moments: the table holds whatever the machine's time zone is. */
const at = (y: number, mo: number, d: number, h: number, mi: number, s = 0): number =>
  new Date(y, mo - 1, d, h, mi, s).getTime();
const NOW = at(2026, 11, 25, 14, 20, 0);

describe('localTime', () => {
  test.each<[string, number, string]>([
    ['earlier today: the time of day', at(2026, 11, 25, 14, 2, 5), '14:02:05'],
    ['later today (a retry, a reset): the time of day', at(2026, 11, 25, 23, 59, 59), '23:59:59'],
    ['just after midnight', at(2026, 11, 25, 0, 0, 7), '00:00:07'],
    ['yesterday: the date too', at(2026, 11, 24, 9, 5, 30), '2026-11-24 09:05'],
    ['tomorrow: the date too', at(2026, 11, 26, 1, 0, 0), '2026-11-26 01:00'],
    ['not a time', Number.NaN, '—'],
  ])('%s', (_name, ms, expected) => {
    expect(localTime(ms, NOW)).toBe(expected);
  });

  test('localStamp: the date, the time and the offset from UTC', () => {
    expect(localStamp(at(2026, 1, 7, 10, 30, 0))).toMatch(/^2026-01-07 10:30:00 UTC[+-]\d\d:\d\d$/);
    expect(localStamp(Number.NaN)).toBe('—');
  });
});
