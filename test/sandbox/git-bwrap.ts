import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Mount } from '../../src/sandbox/mount.js';
import { GIT_IDENTITY } from '../helpers/git-repo.js';

/** Whether bubblewrap can make a sandbox here (it needs user namespaces or root). */
export const BWRAP_WORKS =
  existsSync('/usr/bin/bwrap') &&
  spawnSync('/usr/bin/bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', 'true']).status === 0;

/** `Mount[]` as bubblewrap arguments, in their order (the test's stand-in for the sandbox's own). */
export function bwrapArgs(mounts: readonly Mount[]): string[] {
  return mounts.flatMap((mount) => {
    if (mount.kind === 'hide') return ['--tmpfs', mount.target];
    return [mount.kind === 'ro' ? '--ro-bind' : '--bind', mount.source, mount.target];
  });
}

/**
 * Runs `script` with sh in a sandbox: the root read-only, `writable` bound writable, then `mounts`;
 * returns its exit status and output.
 */
export function inSandbox(
  options: { cwd: string; writable: string[]; mounts: readonly Mount[]; env?: Record<string, string> },
  script: string,
): { status: number | null; output: string } {
  const args = [
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent'],
    ['--cap-drop', 'ALL'],
    options.writable.flatMap((dir) => ['--bind', dir, dir]),
    bwrapArgs(options.mounts),
    ['--chdir', options.cwd, 'sh', '-c', script],
  ].flat();
  const result = spawnSync('/usr/bin/bwrap', args, {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', ...GIT_IDENTITY, ...options.env },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
