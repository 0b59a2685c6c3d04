import { describe, expect, test } from 'vitest';
import { signalOfExit } from '../../src/sandbox/exit-status.js';

describe("bubblewrap's exit status read back", () => {
  test.each([
    ['an ordinary exit', { exitCode: 1, signal: null }, { exitCode: 1, signal: null }],
    ['128 itself', { exitCode: 128, signal: null }, { exitCode: 128, signal: null }],
    ['137: killed by SIGKILL', { exitCode: 137, signal: null }, { exitCode: null, signal: 'SIGKILL' }],
    ['143: SIGTERM', { exitCode: 143, signal: null }, { exitCode: null, signal: 'SIGTERM' }],
    [
      '153: SIGXFSZ (a file past its size limit)',
      { exitCode: 153, signal: null },
      { exitCode: null, signal: 'SIGXFSZ' },
    ],
    [
      '145: SIGCHLD cannot kill, so an exit code (Gemini CLI)',
      { exitCode: 145, signal: null },
      { exitCode: 145, signal: null },
    ],
    ['147: SIGSTOP stops, never ends', { exitCode: 147, signal: null }, { exitCode: 147, signal: null }],
    ['200: no such signal', { exitCode: 200, signal: null }, { exitCode: 200, signal: null }],
    ['a signal already known', { exitCode: null, signal: 'SIGINT' }, { exitCode: null, signal: 'SIGINT' }],
    ['no status at all', { exitCode: null, signal: null }, { exitCode: null, signal: null }],
  ])('%s', (_name, result, expected) => {
    expect(signalOfExit(result)).toEqual(expected);
  });
});
