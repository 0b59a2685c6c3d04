import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { WiggumConfig } from '../config/config.js';
import { sessionPaths } from '../memory/paths.js';
import { serializeSessionMeta } from '../memory/session-meta.js';
import { locateFrontmatter } from '../task/frontmatter.js';
import type { PersistenceLoopData } from '../task/render.js';
import { vaultLayout } from '../vault/layout.js';
import type { VaultLayout } from '../vault/layout.js';
import type { MemoryFiles } from './memory-files.js';

/**
 * A worker's private copy of the part of the vault one run needs: the task file in Approved/ and
 * its session memory. The loop runs against it exactly as it runs against a vault, and the worker
 * sends what the loop writes there back to the vault host, the only writer of the real vault. It is
 * rebuilt from the job each time a worker takes a run up, so nothing in it outlives the run.
 */
export interface ShadowVault {
  layout: VaultLayout;
  /** The task file in the copy's Approved/. */
  file: string;
}

export interface ShadowInput {
  taskId: string;
  fileName: string;
  taskText: string;
  /** The checkpoint the run resumes from. */
  checkpoint: PersistenceLoopData | null;
  memory: MemoryFiles;
  /** The worker's clone of the task's code, on the task's branch: the run's workdir. */
  workdir: string;
  branch: string;
}

export async function buildShadowVault(
  root: string,
  input: ShadowInput,
  config: Pick<WiggumConfig, 'folders' | 'dashboard'>,
  createdAt: string,
): Promise<ShadowVault> {
  await rm(root, { recursive: true, force: true });
  const layout = vaultLayout(root, { folders: config.folders, dashboard: null });
  await mkdir(layout.approved, { recursive: true });
  const paths = sessionPaths(layout.sessions, input.taskId);
  await mkdir(paths.dir, { recursive: true });
  const session = input.checkpoint?.session;
  if (session !== undefined) {
    await writeFile(
      paths.sessionFile,
      serializeSessionMeta({
        sessionId: session,
        taskId: input.taskId,
        taskFile: input.fileName,
        branchName: input.branch,
        createdAt,
      }),
    );
    await Promise.all([
      input.memory.prd === null ? null : writeFile(paths.prd, input.memory.prd),
      input.memory.progress === null ? null : writeFile(paths.progress, input.memory.progress),
      input.memory.context === null ? null : writeFile(paths.context, input.memory.context),
    ]);
  }
  const file = join(layout.approved, input.fileName);
  await writeFile(file, shadowTaskText(input));
  return { layout, file };
}

/**
 * The task's text as the copy holds it: the user's frontmatter and body, with the keys that tie it
 * to the vault's machine replaced: its workdir is the worker's clone, worked in place on the task's
 * branch (the clone is the run's own: no worktree, no landing here), its id fixed, its checkpoint
 * the one the run resumes from.
 */
export function shadowTaskText(input: ShadowInput): string {
  const text = input.taskText.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const layout = locateFrontmatter(text);
  const yaml = layout.hasFrontmatter ? text.slice(layout.yamlStart, layout.yamlEnd) : '';
  // A frontmatter with no keys (or `{}`) starts as a block mapping: the task parser refuses a `{…}` one.
  const empty = yaml.trim() === '' || yaml.trim() === '{}';
  const doc = parseDocument(empty ? `id: ${JSON.stringify(input.taskId)}\n` : yaml);
  doc.set('id', input.taskId);
  doc.set('workdir', input.workdir);
  doc.set('branch', input.branch);
  for (const key of ['base', 'land', 'prd']) doc.delete(key);
  if (input.checkpoint === null) doc.delete('persistence_loop');
  else doc.set('persistence_loop', input.checkpoint);
  return `---\n${doc.toString({ lineWidth: 0 })}---\n${text.slice(layout.bodyStart)}`;
}

/** The memory files the loop left in the copy's session folder. */
export function shadowMemoryPaths(
  layout: VaultLayout,
  taskId: string,
): { prd: string; progress: string; context: string } {
  const paths = sessionPaths(layout.sessions, taskId);
  return { prd: paths.prd, progress: paths.progress, context: paths.context };
}
