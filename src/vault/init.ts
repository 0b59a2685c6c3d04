import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { WiggumError, systemErrorCode } from '../errors.js';

/** The commented config; `harness` (from `init --harness NAME`) becomes the one live setting. */
function configText(harness: string | null): string {
  const defaultHarness =
    harness === null
      ? `# harness:
#   default: claude        # demo runs the built-in demo agent (no API key needed)
`
      : `harness:
  default: ${harness}        # the agent of every task that does not name its own
`;
  return `# This vault's settings, merged over wiggum's built-in config/default.yaml
# (see that file for every setting and its meaning). Check them with: wiggum validate
#
# persistence_loop:
#   max_iterations: 30
${defaultHarness}# vault:
#   allowed_workdirs: [~/code]
# checks:
#   tests:
#     command: npm
#     args: [test]
`;
}

const SAMPLE = `---
title: Try wiggum with the demo agent
harness: demo
max_iterations: 10
---
# Try wiggum with the demo agent

The demo agent marks one story done per iteration, then prints the completion promise.
Change \`harness:\` to \`claude\` (or another configured agent) and give it real work.

- [ ] US-001 Read the task list and the progress log
- [ ] US-002 Mark a story as passing
`;

/** Drafts/ is where a person writes a task before moving it, whole, into Approved/. */
const FOLDERS = ['Approved', 'Done', 'Rejected', 'Drafts', '.wiggum'] as const;

export interface ScaffoldOptions {
  /** Written as `harness.default` into a new `.wiggum/config.yaml`; checked by the caller. */
  harness?: string;
}

/**
 * `wiggum init [DIR]`: the vault folders, a commented config and a sample task. Nothing that
 * exists is overwritten; returns what was created. A place where no folder can be made (under a
 * file, in /proc or /sys, without permission) is E_USAGE with one line saying why.
 */
export async function scaffoldVault(root: string, options: ScaffoldOptions = {}): Promise<string[]> {
  const created: string[] = [];
  await makeFolder(root, root);
  for (const folder of FOLDERS) {
    if (await makeFolder(join(root, folder), root)) created.push(`${folder}/`);
  }
  for (const [file, text] of [
    ['.wiggum/config.yaml', configText(options.harness ?? null)],
    ['Approved/try-wiggum.md', SAMPLE],
  ] as const) {
    try {
      await writeFile(join(root, file), text, { flag: 'wx' });
      created.push(file);
    } catch (error) {
      if (systemErrorCode(error) !== 'EEXIST') throw cannotCreate(root, join(root, file), error);
    }
  }
  return created;
}

/**
 * Makes `path` and any missing parent, one level at a time; true when `path` was made. Not
 * `mkdir(path, { recursive: true })`: in /proc that never returns (Node retries ENOENT forever).
 */
async function makeFolder(path: string, root: string): Promise<boolean> {
  const kind = await kindOf(path, root);
  if (kind === 'folder') return false;
  if (kind === 'other') throw new WiggumError('E_USAGE', `cannot create a vault at ${root}: ${path} is a file, not a folder; choose another place`, { details: { path } });
  const parent = dirname(path);
  if (parent !== path) await makeFolder(parent, root);
  try {
    await mkdir(path);
    return true;
  } catch (error) {
    if (systemErrorCode(error) === 'EEXIST' && (await kindOf(path, root)) === 'folder') return false;
    throw cannotCreate(root, path, error);
  }
}

async function kindOf(path: string, root: string): Promise<'folder' | 'other' | 'missing'> {
  try {
    return (await stat(path)).isDirectory() ? 'folder' : 'other';
  } catch (error) {
    const code = systemErrorCode(error);
    // ENOTDIR: a parent is a file; the walk up finds it and names it.
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw cannotCreate(root, path, error);
  }
}

function cannotCreate(root: string, path: string, error: unknown): WiggumError {
  const code = systemErrorCode(error);
  const why =
    code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
      ? 'this place cannot be written to'
      : code === 'ENOENT'
        ? 'the system does not allow folders here'
        : code === 'ENOSPC' || code === 'EDQUOT'
          ? 'the disk is full'
          : 'it could not be created';
  const where = path === root ? '' : ` (${path})`;
  return new WiggumError('E_USAGE', `cannot create a vault at ${root}${where}: ${why} (${code ?? String(error)}); choose a folder you can write to`, { cause: error, details: { path, errno: code } });
}
