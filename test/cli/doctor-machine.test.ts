import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { outputOf, runCli } from '../helpers/child.js';
import type { CliResult } from '../helpers/child.js';
import { mountSmallDisk } from '../helpers/small-disk.js';
import type { SmallDisk } from '../helpers/small-disk.js';
import { stageBuildFor } from '../helpers/staged-build.js';
import type { StagedBuild } from '../helpers/staged-build.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * doctor against the machine itself: a vault on a nearly full file system of its own (a real
 * tmpfs, so statfs answers for real), and a Done/ folder the user running doctor cannot write. File
 * modes do not bind root, so as root doctor runs as `nobody`, from a copy of the build it can reach.
 */

const NOBODY = { uid: 65534, gid: 65534 };
const asRoot = process.getuid?.() === 0;
let staged: StagedBuild | undefined;
let disk: SmallDisk | null = null;
beforeAll(() => {
  if (asRoot) staged = stageBuildFor(NOBODY);
});
afterAll(() => staged?.release());
afterEach(() => {
  disk?.unmount();
  disk = null;
});

function makeVaultAt(vault: string): void {
  for (const dir of ['Approved', 'Done', 'Rejected', '.wiggum']) mkdirSync(join(vault, dir), { recursive: true });
  writeFileSync(join(vault, '.wiggum', 'config.yaml'), '');
}

/** The built CLI as `nobody` (when root) or as this user. */
function runDoctorAsOther(vault: string): Promise<CliResult> {
  if (staged === undefined) return runCli(['doctor', '--vault', vault], { env: { PATH: '/usr/bin:/bin' } });
  const { node, cli, env } = staged;
  return outputOf(
    spawn(node, [cli, 'doctor', '--vault', vault], { env: { ...env, HOME: vault }, uid: NOBODY.uid, gid: NOBODY.gid }),
  );
}

describe('wiggum doctor, on the machine', () => {
  test('a vault on a file system with a few MB free: the disk check FAILs with the free space (exit 1)', async () => {
    disk = mountSmallDisk(8192);
    const vault = join(disk.path, 'vault');
    makeVaultAt(vault);
    const result = await runCli(['doctor', '--vault', vault], { env: { PATH: '/usr/bin:/bin' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(`^FAIL {2}disk: [\\d.]+ MB free space on the file system of ${vault}\\n {6}fix: free disk space`, 'm'),
    );
  });

  test('a Done/ the user running doctor cannot write is a FAIL saying so (exit 1); the folders it can are ok', async () => {
    const root = tempDir();
    const vault = join(root, 'vault');
    makeVaultAt(vault);
    const done = join(vault, 'Done');
    if (asRoot) {
      // nobody owns the vault, root keeps Done/ (0755): nobody can read it but not write it.
      for (const path of [
        root,
        vault,
        ...['Approved', 'Rejected', '.wiggum', '.wiggum/config.yaml'].map((name) => join(vault, name)),
      ])
        chownSync(path, NOBODY.uid, NOBODY.gid);
      chmodSync(done, 0o755);
    } else {
      chmodSync(done, 0o555);
    }
    const result = await runDoctorAsOther(vault);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `FAIL  vault Done/: ${done} is not readable and writable by this user (permission denied)\n      fix: fix its owner or permissions`,
    );
    expect(result.stdout).toContain(`ok    vault Approved/: ${join(vault, 'Approved')} is readable and writable`);
  });
});
