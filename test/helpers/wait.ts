import { existsSync } from 'node:fs';

/**
 * A test timeout (vitest's 0) for a test whose length grows with the machine's load: no budget for
 * the whole test, because each of its waits fails on its own once nothing has moved for a while.
 */
export const NO_TOTAL_BUDGET = 0;

/**
 * Resolves once `path` exists. Polls: file-system events are not reliable across every file
 * system, and this is a wait for a state, never a measurement. Fails after `guardMs`.
 */
export async function waitForFile(path: string, guardMs = 30_000): Promise<void> {
  await waitFor(() => existsSync(path), `${path} to exist`, guardMs);
}

/** Resolves once `condition` holds; polls every 20 ms and fails after `guardMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  guardMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + guardMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${guardMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Resolves once `measure()` reaches `target`. Fails only when it has not grown for `stallMs`: a
 * busy machine gets there later, a stuck one still fails. Polls every 20 ms.
 */
export async function waitForProgress(
  measure: () => number,
  target: number,
  what: string,
  stallMs = 120_000,
): Promise<void> {
  let best = measure();
  let since = Date.now();
  while (best < target) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = measure();
    if (now > best) {
      best = now;
      since = Date.now();
    } else if (Date.now() - since > stallMs) {
      throw new Error(`gave up waiting for ${what}: ${best} of ${target}, and no progress for ${stallMs} ms`);
    }
  }
}
