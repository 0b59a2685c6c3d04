import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Where a configured command is, as the OS would find it when wiggum starts it: a name without a
 * `/` is looked up on PATH (the first executable file wins), anything else is a path.
 * `not-executable`: a file is there but the current user cannot run it (chmod +x).
 */
export type CommandLocation =
  | { status: 'found'; command: string; path: string }
  | { status: 'missing'; command: string; searched: 'path' | 'file' }
  | { status: 'not-executable'; command: string; path: string };

export interface LookupPlaces {
  /** The PATH to search, as in the environment (`a:b:c`). */
  pathEnv: string | undefined;
  /** A relative path is taken from here (the harness's working folder). */
  cwd: string;
}

/** Finds `command` the way spawn would; never throws for a missing or unreadable file. */
export async function locateCommand(command: string, places: LookupPlaces): Promise<CommandLocation> {
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(places.cwd, command);
    const kind = await fileKind(path);
    if (kind === 'missing') return { status: 'missing', command, searched: 'file' };
    return kind === 'executable' ? { status: 'found', command, path } : { status: 'not-executable', command, path };
  }
  let notExecutable: string | null = null;
  for (const dir of (places.pathEnv ?? '').split(delimiter)) {
    // An empty PATH entry means the current folder, as in a shell.
    const path = join(dir === '' ? places.cwd : resolve(places.cwd, dir), command);
    const kind = await fileKind(path);
    if (kind === 'executable') return { status: 'found', command, path };
    if (kind === 'not-executable' && notExecutable === null) notExecutable = path;
  }
  return notExecutable === null
    ? { status: 'missing', command, searched: 'path' }
    : { status: 'not-executable', command, path: notExecutable };
}

/** What a person reads about a located command, and the fix when it cannot run. */
export function describeLocation(
  location: CommandLocation,
  configKey: string,
): { ok: boolean; text: string; fix: string | null } {
  switch (location.status) {
    case 'found':
      return { ok: true, text: location.path, fix: null };
    case 'missing':
      return {
        ok: false,
        text:
          location.searched === 'path'
            ? `${location.command} is missing (not found on PATH)`
            : `${location.command} is missing (no such file)`,
        fix: `install it, or fix ${configKey} in the config`,
      };
    case 'not-executable':
      return {
        ok: false,
        text: `${location.path} is not executable`,
        fix: `chmod +x ${location.path}, or fix ${configKey} in the config`,
      };
  }
}

async function fileKind(path: string): Promise<'executable' | 'not-executable' | 'missing'> {
  try {
    if (!(await stat(path)).isFile()) return 'missing';
  } catch {
    return 'missing';
  }
  try {
    await access(path, constants.X_OK);
    return 'executable';
  } catch {
    return 'not-executable';
  }
}

/** The outcome of `<command> --version`: its first non-empty output line, or why there is none. */
export type VersionReading = { ok: true; version: string } | { ok: false; reason: string };

/**
 * Runs `path --version` without a shell, stdin closed, and returns the first non-empty line it
 * prints (stdout, else stderr). A command that does not answer within `timeoutMs` is killed.
 */
export function readCommandVersion(
  path: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<VersionReading> {
  return new Promise((resolveReading) => {
    let output = '';
    let errors = '';
    const child = spawn(path, ['--version'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    const keep = (current: string, chunk: Buffer): string =>
      current.length > 4096 ? current : current + chunk.toString('utf8');
    child.stdout.on('data', (chunk: Buffer) => (output = keep(output, chunk)));
    child.stderr.on('data', (chunk: Buffer) => (errors = keep(errors, chunk)));
    child.on('error', (error) =>
      resolveReading({
        ok: false,
        reason: `could not be started (${(error as NodeJS.ErrnoException).code ?? error.message})`,
      }),
    );
    // 'close' waits for the output to be read to its end; a timeout kills the child, which closes it.
    child.on('close', (code, signal) => {
      const line = firstLine(output) ?? firstLine(errors);
      if (signal !== null) resolveReading({ ok: false, reason: `--version did not answer within ${timeoutMs} ms` });
      else if (line !== null) resolveReading({ ok: true, version: line });
      else resolveReading({ ok: false, reason: `--version printed nothing (exit ${code ?? '?'})` });
    });
  });
}

function firstLine(text: string): string | null {
  const line = text.split(/\r?\n/).find((candidate) => candidate.trim() !== '');
  return line === undefined ? null : line.trim().slice(0, 200);
}
