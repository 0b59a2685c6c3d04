import { expect, test } from 'vitest';
import { coalesce } from '../../src/vault/coalesce.js';

/** A task whose runs wait until the test releases them, counting overlap. */
function gatedTask(): {
  run: () => Promise<void>;
  release: () => void;
  runs: () => number;
  maxOverlap: () => number;
  waiting: () => number;
} {
  const gates: (() => void)[] = [];
  let runs = 0;
  let running = 0;
  let maxOverlap = 0;
  const task = async (): Promise<void> => {
    runs += 1;
    running += 1;
    maxOverlap = Math.max(maxOverlap, running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running -= 1;
  };
  return {
    run: coalesce(task),
    release: () => gates.shift()?.(),
    runs: () => runs,
    maxOverlap: () => maxOverlap,
    waiting: () => gates.length,
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('calls during a run share one follow-up run; runs never overlap', async () => {
  const task = gatedTask();
  const first = task.run();
  const second = task.run();
  const third = task.run();
  expect(second).toBe(third);
  expect(task.runs()).toBe(1);

  task.release();
  await first;
  await turn();
  expect(task.runs()).toBe(2);
  // A call now, while the follow-up runs, gets another follow-up.
  const fourth = task.run();
  expect(fourth).not.toBe(second);
  task.release();
  await second;
  await turn();
  task.release();
  await fourth;
  expect(task.runs()).toBe(3);
  expect(task.maxOverlap()).toBe(1);
});

test('a failed run does not block the next one', async () => {
  let calls = 0;
  const run = coalesce(async () => {
    calls += 1;
    await Promise.resolve();
    if (calls === 1) throw new Error('boom');
  });
  const first = run();
  const second = run();
  await expect(first).rejects.toThrow('boom');
  await second;
  await run();
  expect(calls).toBe(3);
});
