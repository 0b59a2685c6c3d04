import { execFile } from 'node:child_process';
import { WiggumError, systemErrorCode } from '../errors.js';

export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Output beyond this is cut (git logs of huge ranges). */
  maxBuffer?: number;
  /** Written to the command's stdin, which is then closed (a notifier's JSON document). */
  input?: string;
}

/**
 * Runs a short helper command (git, a verify check) without a shell and returns its output; a
 * non-zero exit is a result, not an error. Only a command that cannot start throws
 * (E_HARNESS_MISSING). Agent harnesses use run-process.ts instead, which owns process groups.
 */
export function runCaptured(command: string, args: string[], options: CommandOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 0,
        killSignal: 'SIGKILL',
        maxBuffer: options.maxBuffer ?? 16 * 1024 * 1024,
        encoding: 'utf8',
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve({ exitCode: 0, signal: null, stdout, stderr });
          return;
        }
        const code = systemErrorCode(error);
        if (code === 'ENOENT' || code === 'EACCES') {
          reject(
            new WiggumError(
              'E_HARNESS_MISSING',
              `${command} could not be started (${code}): is it installed and on PATH?`,
              {
                cause: error,
                details: { command },
              },
            ),
          );
          return;
        }
        const failed = error as { code?: unknown; signal?: NodeJS.Signals | null };
        resolve({
          exitCode: typeof failed.code === 'number' ? failed.code : null,
          signal: failed.signal ?? null,
          stdout,
          stderr,
        });
      },
    );
    if (options.input !== undefined) {
      // A command that exits without reading its stdin closes the pipe: EPIPE is not its failure.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.input);
    }
  });
}
