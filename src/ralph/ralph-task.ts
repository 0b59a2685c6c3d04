import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WiggumError } from '../errors.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { formatProblem } from '../problem.js';
import { locateFrontmatter } from '../task/frontmatter.js';
import type { Task } from '../task/parse.js';
import { readTaskFile } from '../task/read.js';
import { TASK_ID_PATTERN } from '../task/vocabulary.js';
import type { VaultLayout } from '../vault/layout.js';
import { vaultLayout } from '../vault/layout.js';
import type { LoopSettings } from './loop-settings.js';
import { settingLines, withSettings } from './settings-file.js';

/**
 * `wiggum ralph` runs in a repository, not a vault: the current folder is the root, and everything
 * wiggum keeps lives under `.wiggum/` — sessions as in a vault, the change's task file in
 * `.wiggum/ralph/<change>.md`, finished ones in `.wiggum/ralph/done/` and `.wiggum/ralph/rejected/`.
 * The repository itself gets no Approved/, Done/ or Rejected/ folders, so the layout owes nothing
 * to the configuration (the context and status commands need none loaded).
 */
export function ralphLayout(root: string): VaultLayout {
  const ralph = join('.wiggum', 'ralph');
  const layout = vaultLayout(root, {
    folders: {
      approved: ralph,
      done: join(ralph, 'done'),
      rejected: join(ralph, 'rejected'),
      review: join(ralph, 'review'),
    },
    dashboard: null,
  });
  return { ...layout, stopFile: join(layout.state, 'STOP') };
}

export function checkChangeId(change: string): void {
  if (!TASK_ID_PATTERN.test(change)) {
    throw new WiggumError(
      'E_USAGE',
      `--change "${change}" is not a valid id: use letters, digits, ".", "_" and "-", starting with a letter or digit`,
    );
  }
}

export function ralphTaskFile(layout: VaultLayout, change: string): string {
  return join(layout.approved, `${change}.md`);
}

/** The change's loop, if there is one: its task file, parsed. One that does not parse is E_USAGE (nothing runs). */
export async function readRalphTask(layout: VaultLayout, change: string): Promise<Task | null> {
  const file = ralphTaskFile(layout, change);
  if (!existsSync(file)) return null;
  const read = await readTaskFile(file);
  if (!read.result.ok) {
    throw new WiggumError(
      'E_USAGE',
      `the loop file ${file} does not parse: ${read.result.problems.map(formatProblem).join('; ')}; fix it and run again`,
    );
  }
  return read.result.task;
}

/** Without a prompt there must be a loop to resume; this says why there is none. */
export function noLoopToResume(layout: VaultLayout, change: string): WiggumError {
  const finished = [join(layout.done, `${change}.md`), join(layout.rejected, `${change}.md`)].find((path) =>
    existsSync(path),
  );
  return new WiggumError(
    'E_USAGE',
    finished === undefined
      ? `there is no loop for --change ${change} yet: give a prompt ("wiggum ralph \\"...\\" --change ${change}") or --prompt-file`
      : `the loop for --change ${change} has finished (${finished}); give a prompt to start a new one`,
  );
}

/**
 * The change's task file, created from the prompt, or the existing one (a resume). A new prompt for
 * an existing change replaces its body and keeps its checkpoint. `record` holds the settings to
 * write into its frontmatter (see settings-file.ts); the rest of the file is kept byte for byte.
 */
export async function ensureRalphTask(
  layout: VaultLayout,
  change: string,
  prompt: string | null,
  record: LoopSettings,
): Promise<{ file: string; action: 'created' | 'updated' | 'resumed' }> {
  const file = ralphTaskFile(layout, change);
  const body = prompt === null ? null : `${prompt.trim()}\n`;
  if (!existsSync(file)) {
    if (body === null) throw noLoopToResume(layout, change);
    await mkdir(layout.approved, { recursive: true });
    const title =
      body
        .split('\n')
        .find((line) => line.trim() !== '')
        ?.replace(/^#+\s*/, '')
        .trim()
        .slice(0, 80) ?? change;
    const settings = settingLines(record)
      .map(([, line]) => `${line}\n`)
      .join('');
    const text = `---\nid: ${change}\ntitle: ${JSON.stringify(title)}\nworkdir: .\n${settings}---\n${body}`;
    // Checked like any later write: a setting the task schema refuses is said before a file exists.
    await writeFileAtomic(file, withSettings(file, text, {}));
    return { file, action: 'created' };
  }
  const text = await readFile(file, 'utf8');
  const { bodyStart } = locateFrontmatter(text);
  const newBody = body !== null && text.slice(bodyStart).trim() !== body.trim();
  const next = withSettings(file, newBody && body !== null ? text.slice(0, bodyStart) + body : text, record);
  if (next !== text) await writeFileAtomic(file, next);
  return { file, action: newBody ? 'updated' : 'resumed' };
}
