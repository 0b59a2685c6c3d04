import { constants } from 'node:os';

/**
 * Signals whose default action is to ignore or stop, never to end a process: a status of 128 + one
 * of these is the program's own exit code (Gemini CLI exits 145 on a refused key), not a death.
 */
const CANNOT_KILL = new Set(['SIGCHLD', 'SIGCONT', 'SIGSTOP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGURG', 'SIGWINCH']);

/**
 * Pure: bubblewrap reports a command killed by a signal as its exit status 128 + N; read back as
 * the signal, as an unconfined run reports it. A status above 128 that no signal explains (or one
 * that cannot kill) stays an exit code; a real exit status of 128 + a fatal signal reads as that
 * signal, which is what a shell reports for it too.
 */
export function signalOfExit<T extends { exitCode: number | null; signal: string | null }>(result: T): T {
  const { exitCode } = result;
  if (result.signal !== null || exitCode === null || exitCode <= 128) return result;
  const name = Object.entries(constants.signals).find(([, number]) => number === exitCode - 128)?.[0];
  if (name === undefined || CANNOT_KILL.has(name)) return result;
  return { ...result, exitCode: null, signal: name };
}
