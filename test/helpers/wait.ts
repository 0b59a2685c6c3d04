import { existsSync } from 'node:fs';

/**
 * Resolves once `path` exists. Polls: file-system events are not reliable across every file
 * system, and this is a wait for a state, never a measurement. Fails after `guardMs`.
 */
export async function waitForFile(path: string, guardMs = 30_000): Promise<void> {
  await waitFor(() => existsSync(path), `${path} to exist`, guardMs);
}

/** Resolves once `condition` holds; polls every 20 ms and fails after `guardMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, guardMs = 30_000): Promise<void> {
  const deadline = Date.now() + guardMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${guardMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
