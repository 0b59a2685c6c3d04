import { describe, expect, test } from 'vitest';
import { AccountPauses } from '../../src/loop/account-pauses.js';

describe('AccountPauses', () => {
  test('one task failing is not an outage for itself; a second one is, for either', () => {
    const pauses = new AccountPauses();
    pauses.failed('codex', 'a');
    expect(pauses.othersFailing('codex', 'a')).toBe(false);
    expect(pauses.othersFailing('codex', 'b')).toBe(true);
    expect(pauses.othersFailing('claude', 'b')).toBe(false);
    pauses.failed('codex', 'b');
    expect(pauses.othersFailing('codex', 'a')).toBe(true);
  });

  test('an answer ends an outage pause and the failures, but not a usage limit', () => {
    const pauses = new AccountPauses();
    pauses.failed('codex', 'a');
    pauses.failed('codex', 'b');
    pauses.pause('codex', 5000, 'outage');
    pauses.pause('claude', 5000, 'usage-limit');
    pauses.answered('codex');
    pauses.answered('claude');
    expect(pauses.pauseOf('codex', 0)).toBeNull();
    expect(pauses.othersFailing('codex', 'a')).toBe(false);
    expect(pauses.pauseOf('claude', 0)).toEqual({ untilMs: 5000, why: 'usage-limit' });
  });

  test('a later pause wins; a usage limit stays what the pause is said to be', () => {
    const pauses = new AccountPauses();
    pauses.pause('codex', 5000, 'usage-limit');
    pauses.pause('codex', 3000, 'outage');
    expect(pauses.pauseOf('codex', 0)).toEqual({ untilMs: 5000, why: 'usage-limit' });
    pauses.pause('codex', 9000, 'outage');
    expect(pauses.pauseOf('codex', 0)).toEqual({ untilMs: 9000, why: 'usage-limit' });
    expect(pauses.pausedUntil('codex', 9000)).toBeNull();
  });

  test('a task that ends no longer counts as failing', () => {
    const pauses = new AccountPauses();
    pauses.failed('codex', 'a');
    pauses.forget('codex', 'a');
    expect(pauses.othersFailing('codex', 'b')).toBe(false);
  });
});
