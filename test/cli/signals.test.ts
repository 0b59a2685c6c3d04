import { afterEach, expect, test } from 'vitest';
import { installStopSignals } from '../../src/cli/signals.js';

type Handler = (signal: NodeJS.Signals) => void;

/** The handler the installer added last for `signal`: called directly, so no other listener of this process runs. */
function installed(signal: NodeJS.Signals): Handler {
  return process.listeners(signal).at(-1) as Handler;
}

const before = { SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') };
afterEach(() => {
  expect(process.listenerCount('SIGINT')).toBe(before.SIGINT);
  expect(process.listenerCount('SIGTERM')).toBe(before.SIGTERM);
});

test('the first SIGINT or SIGTERM asks for a clean stop, with the signal; nothing exits', async () => {
  const stops: NodeJS.Signals[] = [];
  const forced: NodeJS.Signals[] = [];
  const release = installStopSignals({ stop: (signal) => stops.push(signal), beforeExit: (s) => forced.push(s) });
  expect(process.listenerCount('SIGINT')).toBe(before.SIGINT + 1);
  expect(process.listenerCount('SIGTERM')).toBe(before.SIGTERM + 1);
  installed('SIGTERM')('SIGTERM');
  expect(stops).toEqual(['SIGTERM']);
  expect(forced).toEqual([]);
  await release();
});

test('SIGINT asks for the same clean stop as SIGTERM', async () => {
  const stops: NodeJS.Signals[] = [];
  const release = installStopSignals({ stop: (signal) => stops.push(signal) });
  installed('SIGINT')('SIGINT');
  expect(stops).toEqual(['SIGINT']);
  await release();
});

test('the release removes both handlers (checked after each test), so a later command installs its own', async () => {
  const release = installStopSignals({ stop: () => undefined });
  await release();
  expect(process.listenerCount('SIGINT')).toBe(before.SIGINT);
});
