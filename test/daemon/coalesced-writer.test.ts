import { describe, expect, test } from 'vitest';
import { CoalescedWriter } from '../../src/daemon/coalesced-writer.js';
import { systemClock } from '../../src/time/clock.js';
import { ManualClock } from '../helpers/manual-clock.js';

/** A writer on a manual clock that only counts its writes. */
function countingWriter(delayMs: number): { clock: ManualClock; writer: CoalescedWriter; writes: () => number } {
  const clock = new ManualClock();
  let writes = 0;
  const writer = new CoalescedWriter(
    delayMs,
    () => Promise.resolve(void (writes += 1)),
    () => undefined,
    clock,
  );
  return { clock, writer, writes: () => writes };
}

describe('CoalescedWriter', () => {
  test('a burst of changes costs one write, and the last state is written', async () => {
    let state = 0;
    const written: number[] = [];
    const writer = new CoalescedWriter(
      5,
      () => Promise.resolve(void written.push(state)),
      () => undefined,
      systemClock,
    );
    for (state = 1; state <= 200; state += 1) writer.schedule();
    state = 200;
    await writer.flush();
    expect(written).toEqual([200]);
  });

  test('a change during a write gets one more write after it, never two at once', async () => {
    let active = 0;
    let peak = 0;
    let release: (() => void) | null = null;
    const writes: number[] = [];
    let state = 1;
    const writer = new CoalescedWriter(
      0,
      async () => {
        active += 1;
        peak = Math.max(peak, active);
        writes.push(state);
        if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
        active -= 1;
      },
      () => undefined,
      systemClock,
    );
    writer.schedule();
    while (release === null) await new Promise((resolve) => setImmediate(resolve));
    state = 2;
    writer.schedule();
    writer.schedule();
    (release as () => void)();
    await writer.flush();
    expect(writes).toEqual([1, 2]);
    expect(peak).toBe(1);
  });

  test('flush with nothing pending writes nothing', async () => {
    const { writer, writes } = countingWriter(5);
    await writer.flush();
    expect(writes()).toBe(0);
  });

  test('a failing write is reported, not thrown', async () => {
    const errors: unknown[] = [];
    const writer = new CoalescedWriter(
      0,
      () => Promise.reject(new Error('disk full')),
      (error) => errors.push(error),
      systemClock,
    );
    writer.schedule();
    await writer.flush();
    expect(errors).toHaveLength(1);
  });

  test('the delay runs on the injected clock: nothing is written until it has passed', async () => {
    const { clock, writer, writes } = countingWriter(200);
    writer.schedule();
    writer.schedule();
    await clock.advance(199);
    expect(writes()).toBe(0);
    await clock.advance(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes()).toBe(1);
    writer.schedule();
    await writer.flush();
    expect(writes()).toBe(2);
    await clock.advance(1000);
    expect(writes()).toBe(2);
  });

  test('cancel drops what is scheduled: nothing is written, and a flush after it writes nothing', async () => {
    const { clock, writer, writes } = countingWriter(200);
    writer.schedule();
    writer.cancel();
    await clock.advance(1000);
    await new Promise((resolve) => setImmediate(resolve));
    await writer.flush();
    expect(writes()).toBe(0);
    // It schedules again after a cancel.
    writer.schedule();
    await clock.advance(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes()).toBe(1);
  });
});
