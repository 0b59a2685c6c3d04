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
const FOLDERS = ['Approved', 'Done', 'Rejected', 'Drafts', 'Review', '.wiggum', 'Blocked'] as const;

export interface ScaffoldOptions {
  /** Written as `harness.default` into a new `.wiggum/config.yaml`; checked by the caller. */
  harness?: string;
}

export interface Scaffolded {
  /** What was created, relative to the vault (`Approved/`, `.wiggum/config.yaml`, …). */
  created: string[];
  /** Why the sample task was not added (the vault is in use), or null when it was, or was there already. */
  sampleLeftOut: string | null;
}

const SAMPLE_FILE = 'try-wiggum.md';

/** What tells whether a vault is new enough to get the sample task. */
export interface SampleFacts {
  /** `.wiggum/` was there before this init: the vault was set up already. */
  vaultExisted: boolean;
  /** Where a file of the sample's name already is (`Done/try-wiggum.md`), or null. */
  sampleAt: string | null;
  /** The sample's session folder exists: it ran here before. */
  sessionExists: boolean;
}

/**
 * Why the sample task must not be added, or null to add it. Only a new vault gets it: in a used
 * one it would run again and archive the earlier sample's session.
 */
export function sampleRefusal(facts: SampleFacts): string | null {
  if (facts.sampleAt !== null) return `the sample task is already at ${facts.sampleAt}`;
  if (facts.sessionExists) return 'the sample task ran here before (its session is in .wiggum/sessions/)';
  if (facts.vaultExisted) return 'this vault was set up before (.wiggum/ exists)';
  return null;
}

/**
 * `wiggum init [DIR]`: the vault folders, a commented config and, in a new vault, a sample task.
 * Nothing that exists is overwritten. A place where no folder can be made (under a file, in /proc
 * or /sys, without permission) is E_USAGE with one line saying why.
 */
export async function scaffoldVault(root: string, options: ScaffoldOptions = {}): Promise<Scaffolded> {
  const created: string[] = [];
  await makeFolder(root, root);
  const facts: SampleFacts = {
    vaultExisted: (await kindOf(join(root, '.wiggum'), root)) !== 'missing',
    sampleAt: await sampleIn(root),
    sessionExists:
      (await kindOf(join(root, '.wiggum', 'sessions', SAMPLE_FILE.replace(/\.md$/, '')), root)) !== 'missing',
  };
  const sampleLeftOut = sampleRefusal(facts);
  for (const folder of FOLDERS) {
    if (await makeFolder(join(root, folder), root)) created.push(`${folder}/`);
  }
  const files: [string, string][] = [['.wiggum/config.yaml', configText(options.harness ?? null)]];
  if (sampleLeftOut === null) files.push([`Approved/${SAMPLE_FILE}`, SAMPLE]);
  for (const [file, text] of files) {
    try {
      // The config will hold webhook URLs with their keys and harness env values: owner-only.
      await writeFile(join(root, file), text, { flag: 'wx', mode: file === '.wiggum/config.yaml' ? 0o600 : 0o644 });
      created.push(file);
    } catch (error) {
      if (systemErrorCode(error) !== 'EEXIST') throw cannotCreate(root, join(root, file), error);
    }
  }
  // A sample still waiting in Approved/ is not news; one left out of a used vault is.
  return { created, sampleLeftOut: facts.sampleAt === `Approved/${SAMPLE_FILE}` ? null : sampleLeftOut };
}

/** The vault folder holding a file of the sample's name, as `Done/try-wiggum.md`, or null. */
async function sampleIn(root: string): Promise<string | null> {
  for (const folder of FOLDERS) {
    if (folder === '.wiggum') continue;
    if ((await kindOf(join(root, folder, SAMPLE_FILE), root)) !== 'missing') return `${folder}/${SAMPLE_FILE}`;
  }
  return null;
}

/**
 * Makes `path` and any missing parent, one level at a time; true when `path` was made. Not
 * `mkdir(path, { recursive: true })`: in /proc that never returns (Node retries ENOENT forever).
 */
async function makeFolder(path: string, root: string): Promise<boolean> {
  const kind = await kindOf(path, root);
  if (kind === 'folder') return false;
  if (kind === 'other')
    throw new WiggumError(
      'E_USAGE',
      `cannot create a vault at ${root}: ${path} is a file, not a folder; choose another place`,
      { details: { path } },
    );
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
  return new WiggumError(
    'E_USAGE',
    `cannot create a vault at ${root}${where}: ${why} (${code ?? String(error)}); choose a folder you can write to`,
    { cause: error, details: { path, errno: code } },
  );
}
